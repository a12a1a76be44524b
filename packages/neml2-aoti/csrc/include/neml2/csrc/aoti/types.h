// Value types shared by every C++ route (neml2::aoti::Model, DispatchedModel, neml2::eager::Model),
// so a host switches routes by changing only the header and the load call.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/canonical.h"
#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// One tensor per variable name, each at its canonical (*batch, *base) shape.
/// (TensorMap itself is declared in canonical.h.)

/// Jacobian blocks J[out][in], each (*batch, *out_base, *in_base) (sub-batched variables:
/// Model::jacobian_block_shape); a block that does not depend on the batch may come back without
/// the batch axes.
using VariablePairJacobian = std::map<std::string, std::map<std::string, at::Tensor>>;

/// A base shape per variable, in the model's input (or output) order.
using BaseShapes = std::vector<std::vector<int64_t>>;

/// forward values and the directional derivatives d(out)/d(in) . tangent, both keyed by output.
using JvpResult = std::pair<TensorMap, TensorMap>;

/// forward values and the Jacobian blocks.
using JacobianResult = std::pair<TensorMap, VariablePairJacobian>;

/// Newton settings of the implicit segments (docs/design/runtime.md, "Implicit segment"). The
/// defaults are the C++ defaults for keys an artifact does not record.
struct NEML2_AOTI_EXPORT SolverConfig
{
  double atol = 1e-10;
  double rtol = 1e-8;
  int64_t miters = 25;
  /// "BACKTRACKING" or "STRONG_WOLFE"; line search is active only when ls_max_iters > 1.
  std::string ls_type = "BACKTRACKING";
  int64_t ls_max_iters = 1;
  double ls_cutback = 2.0;
  double ls_c = 1e-3;
  double substep_del_tol = 1e-6;
  /// Keep the per-iteration log lines instead of printing them.
  bool collect_log = false;
  /// The residual/Jacobian graphs of an implicit segment run on at most this many batch rows per
  /// call (larger batches in equal row blocks; 0: the whole batch). Rows are independent, so
  /// results do not change; the graphs' intermediates then stay in cache and their memory is
  /// bounded. Newton still iterates over the whole batch, but solves each block's Jacobians where
  /// its graph call left them (never concatenated into one (B, N, N) copy).
  /// auto_chunk_rows (the default on CPU): each segment's block as neml2-compile recorded it
  /// (large for scalarized graphs, which keep no per-point intermediates), else
  /// default_chunk_rows. A model on a non-CPU device starts at 0.
  int64_t chunk_rows = auto_chunk_rows;

  static constexpr int64_t auto_chunk_rows = -1;
  static constexpr int64_t default_chunk_rows = 512;
};
} // namespace neml2::aoti
