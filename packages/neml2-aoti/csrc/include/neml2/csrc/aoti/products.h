// One-pass sums of broadcast products, for py-eager's forward chain rule.
#pragma once

#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/aoti/simd.h"

namespace neml2::aoti
{
/// One term scale * a * b of sum_of_products; an undefined `a` stands for 1 (the term is
/// scale * b).
struct ProductTerm
{
  double scale = 1.0;
  at::Tensor a;
  at::Tensor b;
};

/// out = sum_i scale_i a_i b_i over broadcast operands, read once and written once.
///
/// Summing k products with ATen ops writes the first product and then reads and rewrites the
/// running sum k - 1 times (addcmul_); here each output element is accumulated in SIMD
/// registers across all terms and stored once. Operands: one floating dtype, CPU, any strides,
/// shapes broadcasting together. The output's memory order is the one ATen's elementwise ops
/// choose with the largest operands first (a batch-innermost tangent stays batch-innermost);
/// an operand at most a quarter of the output's size read with a stride along the output's
/// innermost axis is first copied into that order (a batch-outermost value among
/// batch-innermost tangents). Terms are summed in order,
/// broadcast factors folded into the scale, so the result equals the ATen sequence up to
/// rounding. The rows are summed with the vectors of `path` (default: simd_path(), i.e.
/// NEML2_SIMD); rows of at most 9 elements (batch-outermost operands, whose rows are a trailing
/// Mandel, vector or tensor axis) by loops unrolled at compile time for their length. Inside a
/// WorkspaceScope the output comes from the scope's workspace (workspace.h). Throws FatalError naming the term at fault (no terms, undefined b, dtype,
/// device, shapes that do not broadcast) and on a path this CPU lacks.
NEML2_AOTI_EXPORT at::Tensor sum_of_products(const std::vector<ProductTerm> & terms,
                                             std::optional<SimdPath> path = std::nullopt);
} // namespace neml2::aoti
