// Newton's method over a flat (B, N) unknown, mirroring neml2.solvers.Newton /
// NewtonWithLineSearch and the shared rules of neml2/solvers/_rules.py one to one (private).
//
//   tau_e = max(atol, rtol |b0_e|)         per-element threshold fixed at the guess
//   converged  <=>  max_e(|b_e| - tau_e) < 0, non-finite  <=>  that max is non-finite
//   ONE host sync per iteration carries (finite, converged, next-iterate-predicted-converged)
//   i = 1 .. miters-1: du = A^{-1} b, u += du (or a per-element line search), new b
//   masked: |b| < atol  or  (|b| < rtol |b0|  and  |du| < substep_del_tol (|u| + atol)),
//           converged / non-finite rows frozen (step zeroed)
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/types.h"

namespace neml2::aoti
{
/// Small dense solve A x = b per batch element (the native batched LU of linalg.h when present);
/// `overwrite_b` as for batched_dense_solve.
at::Tensor dense_solve(const at::Tensor & A, const at::Tensor & b, bool overwrite_b = false);

/// A batch of Jacobians A (B, N, N), held as the consecutive row blocks the graph calls produced
/// (one block when the batch ran in one call). Solving block by block never concatenates A: with
/// row-blocked graph calls, that concatenation was a full copy of every matrix per iteration.
class RowBlocks
{
public:
  RowBlocks() = default;
  explicit RowBlocks(std::vector<at::Tensor> blocks)
    : _blocks(std::move(blocks))
  {
  }

  bool defined() const { return !_blocks.empty(); }
  /// x = A^{-1} b for b (B, N) or (B, N, M): dense_solve per block on its rows of b.
  /// `overwrite_b`: b is a temporary of the caller's, solved in its memory where the kernel can
  /// (x may then alias b; see batched_dense_solve).
  at::Tensor solve(const at::Tensor & b, bool overwrite_b = false) const;

private:
  std::vector<at::Tensor> _blocks;
};

/// b(u), A(u) and the Newton step du = A^{-1} b at one u.
struct NewtonEvaluation
{
  at::Tensor b;
  RowBlocks A;
  at::Tensor du;
};

/// The residual b = -r(u) and its Jacobian A = dr/du of one implicit system over flat (B, N) u.
class NewtonProblem
{
public:
  virtual ~NewtonProblem() = default;
  /// b(u), (B, N).
  virtual at::Tensor residual(const at::Tensor & u) = 0;
  /// (b(u), A(u)) with A (B, N, N) in row blocks, from the graph call(s) of one evaluation.
  virtual std::pair<at::Tensor, RowBlocks> residual_and_jacobian(const at::Tensor & u) = 0;
  /// b, A and the step A^{-1} b at u. This default solves after the evaluation; a problem whose
  /// graphs run in row blocks solves each block right after its call, while its A is in cache.
  virtual NewtonEvaluation residual_jacobian_step(const at::Tensor & u)
  {
    auto [b, A] = residual_and_jacobian(u);
    auto du = A.solve(b);
    return {std::move(b), std::move(A), std::move(du)};
  }
};

/// Newton log sink: NEML2_LOGS=newton=info|debug prints, SolverConfig::collect_log collects.
struct NewtonTrace
{
  explicit NewtonTrace(bool collect);
  bool collect;
  bool info_on;
  bool debug_on;
  std::vector<std::string> lines;
  void write(bool debug, const std::string & msg);
};

/// Throwing solve: returns the converged u; ConvergenceError (recoverable) on divergence or the
/// iteration cap (with captured masked data when NEML2_CAPTURE_SOLVE_FAILURE is truthy).
at::Tensor newton_solve(NewtonProblem & problem,
                        const at::Tensor & u0,
                        const SolverConfig & config,
                        NewtonTrace & trace);

struct MaskedSolve
{
  at::Tensor u;
  at::Tensor converged; // bool (B,)
  int64_t iterations = 0;
};

/// Never throws a ConvergenceError; returns the per-element converged mask.
MaskedSolve
newton_solve_masked(NewtonProblem & problem, const at::Tensor & u0, const SolverConfig & config);

/// "%e"-style rendering (tiny tolerances stay visible).
std::string sci(double x);
} // namespace neml2::aoti
