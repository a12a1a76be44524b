// neml2::Tensor and neml2::ValueMap: the name-keyed values of neml2::Model::value.
#pragma once

#include <map>

#include <ATen/core/Tensor.h>

#include "neml2/misc/types.h"

namespace neml2
{
/// A torch tensor in the canonical (*batch, *sub_batch, *base) layout of a model variable.
class Tensor : public at::Tensor
{
public:
  Tensor() = default;
  /// Implicit: any at::Tensor (or neml2 tensor type) is a Tensor.
  Tensor(const at::Tensor & tensor)
    : at::Tensor(tensor)
  {
  }
};

/// Variable name -> value.
using ValueMap = std::map<VariableName, Tensor>;
} // namespace neml2
