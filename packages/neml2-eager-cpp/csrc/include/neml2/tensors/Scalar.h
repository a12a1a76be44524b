// neml2::Scalar: a tensor of base shape () (a Scalar variable's value).
#pragma once

#include "neml2/tensors/Tensor.h"

namespace neml2
{
class NEML2_EAGER_EXPORT Scalar : public Tensor
{
public:
  using Tensor::Tensor;

  /// An unbatched Scalar holding `init` (dtype and device from `options`).
  static Scalar full(const CScalar & init,
                     const TensorOptions & options = default_tensor_options());
};
} // namespace neml2
