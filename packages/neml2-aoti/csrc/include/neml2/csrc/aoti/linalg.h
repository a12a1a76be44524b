// Batched small dense linear solves for the runtime's Newton loops (and py-eager's DenseLU).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/aoti/simd.h"

namespace neml2::aoti
{
/// Largest n solved by the native per-element LU; larger systems go to at::linalg_solve.
inline constexpr int64_t batched_dense_solve_max_n = 32;

/// Solve A x = b per batch element: A (B, n, n), b (B, n) or (B, n, k), same dtype/device.
///
/// CPU float32/float64 with n <= batched_dense_solve_max_n and no autograd: a partial-pivoting
/// LU of each element in a tight loop (unrolled for n <= 24), at::parallel_for over B;
/// otherwise at::linalg_solve_ex. A may have any strides (each element is gathered; batch-last
/// Jacobians need no transposing copy); x is contiguous. Returns x with b's
/// shape. A singular element gives non-finite x for that element only (no throw), so Newton's
/// non-finite check catches it. The native LU runs on `path` (default: simd_path(), i.e.
/// NEML2_SIMD); every path rounds identically. Throws FatalError on mismatched
/// shapes/dtypes/devices and on a path this CPU lacks.
///
/// `overwrite_b`: the caller no longer needs b, so the native LU may solve in b's memory and
/// return x aliasing b (it does when b is contiguous and shares no memory with A; otherwise, and
/// on the at::linalg_solve_ex path, b is left as it was). Saves allocating and filling x: for
/// the sensitivity solves of a large batch, a buffer of tens of MB per call.
NEML2_AOTI_EXPORT at::Tensor batched_dense_solve(const at::Tensor & A,
                                                 const at::Tensor & b,
                                                 std::optional<SimdPath> path = std::nullopt,
                                                 bool overwrite_b = false);

/// One block of a batch of (B, n, n) matrices: rows [row, row + t.size(1)) and columns
/// [col, col + t.size(2)) are t (B, rows, cols) (any strides; batch 1 broadcasts).
struct MatrixPart
{
  int64_t row = 0, col = 0;
  at::Tensor t;
};

/// batched_dense_solve of the (B, n, n) matrices that are zero outside `parts` (disjoint; B is
/// b's batch). The native LU reads every element's entries from the parts in place, so a block
/// Jacobian (the compiled `_jacobian` graphs return one per residual variable and unknown) is
/// never assembled; the at::linalg_solve_ex fallback assembles the dense matrices first. Throws
/// FatalError naming the part that does not fit (shape, position, dtype, device). `overwrite_b`
/// as for batched_dense_solve (no part may share memory with b for x to alias it).
NEML2_AOTI_EXPORT at::Tensor batched_parts_solve(const std::vector<MatrixPart> & parts,
                                                 int64_t n,
                                                 const at::Tensor & b,
                                                 std::optional<SimdPath> path = std::nullopt,
                                                 bool overwrite_b = false);
} // namespace neml2::aoti
