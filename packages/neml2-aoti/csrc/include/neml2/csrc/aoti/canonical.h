// The canonical runtime boundary (docs/design/runtime.md, "Canonical boundary").
//
// Every input is a tensor of shape (*batch, *sub_batch, *base). canonicalize_inputs checks that
// exactly the expected inputs are present, that each one's trailing axes equal its sub-batch and
// base shape, and that its dtype and device are the model's (never casting). The leading batch
// shapes of all inputs are then broadcast to one common shape (at::infer_size, numpy rules; a
// batch-less input, ndim == trailing ndim, has batch (), so batch-less inputs alone give batch
// ()) and every input is expanded to (*batch, *sub_batch, *base) and made contiguous. Every
// violation is a FatalError naming the variable, the expected and the actual value.
//
// This is the one implementation of these rules: the compiled routes call it (model_call.cpp),
// and Python reaches it as neml2.aoti.canonicalize_inputs (the eager C++ route's bridge and the
// tests), with broadcast_batch_shapes for the batch of results.
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

/// What canonicalize_inputs checks beyond the compiled routes' defaults.
struct NEML2_AOTI_EXPORT CanonicalOptions
{
  /// Per name (in the order of `names`), the declared sub-batch shape between the batch and the
  /// base axes; empty: no variable has one.
  std::vector<std::vector<int64_t>> sub_batch_shapes;
  /// false: a name absent from the inputs is skipped (tangents: a missing one counts as zero).
  bool required = true;
  /// The noun of the messages ("input", "tangent").
  std::string what = "input";
  /// false: check only; the values come back as given, not expanded to the common batch (a
  /// caller that cuts the batch itself, e.g. DispatchedModel, checks the whole batch first).
  bool expand = true;
};

NEML2_AOTI_EXPORT CanonicalInputs
canonicalize_inputs(const TensorMap & inputs,
                    const std::vector<std::string> & names,
                    const std::vector<std::vector<int64_t>> & base_shapes,
                    const c10::Device & device,
                    c10::ScalarType dtype,
                    const CanonicalOptions & options = {});

/// The common batch shape of `shapes` (the broadcasting rule of canonicalize_inputs); a
/// FatalError listing them when there is none.
NEML2_AOTI_EXPORT std::vector<int64_t>
broadcast_batch_shapes(const std::vector<std::vector<int64_t>> & shapes);

/// Render a shape as "[2, 3]" for error messages.
NEML2_AOTI_EXPORT std::string format_shape(c10::IntArrayRef shape);
} // namespace neml2::aoti
