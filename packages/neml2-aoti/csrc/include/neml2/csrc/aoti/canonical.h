// The canonical runtime boundary (docs/design/runtime.md, "Canonical boundary").
//
// Every input is a tensor of shape (*batch, *base). canonicalize_inputs checks that exactly the
// expected inputs are present, that each one's trailing axes equal its base shape, and that its
// dtype and device are the model's (never casting). The leading batch shapes of all inputs are
// then broadcast to one common shape (at::infer_size, numpy rules; a batch-less input, ndim ==
// base ndim, has batch (), so batch-less inputs alone give batch ()) and every input is expanded
// to (*batch, *base) and made contiguous. Every violation is a FatalError naming the variable,
// the expected and the actual value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
using TensorMap = std::map<std::string, at::Tensor>;

/// Result of canonicalize_inputs: the canonical tensors and their common batch shape.
struct NEML2_AOTI_EXPORT CanonicalInputs
{
  TensorMap values;
  std::vector<int64_t> batch_shape;
};

NEML2_AOTI_EXPORT CanonicalInputs
canonicalize_inputs(const TensorMap & inputs,
                    const std::vector<std::string> & names,
                    const std::vector<std::vector<int64_t>> & base_shapes,
                    const c10::Device & device,
                    c10::ScalarType dtype);

/// Render a shape as "[2, 3]" for error messages.
NEML2_AOTI_EXPORT std::string format_shape(c10::IntArrayRef shape);
} // namespace neml2::aoti
