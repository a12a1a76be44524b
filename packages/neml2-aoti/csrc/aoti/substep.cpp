// Adaptive substepping of an implicit segment (docs/design/runtime.md, "Substepping").
//
// solve_to(a, b, rows, level): the step fraction span [a, b] of the rows still to solve.
// Givens: cur_force y at the span end, old_force y~1 at the span start (y(tau) = y~1 + tau (y -
// y~1)), old_state u~1 chained from the previous span's solution, static held. A masked Newton
// solve freezes converged rows; failed rows are bisected into [a, mid] and [mid, b] one level
// deeper; past max_substepping_level a recoverable ConvergenceError is thrown.
#include <ATen/ATen.h>

#include "model_impl.h"
#include "newton.h"
#include "segment_problem.h"
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace
{
struct Substepper
{
  const ImplicitSegment & seg;
  const std::vector<VarInfo> & vars;
  const SolverConfig & config;
  std::vector<at::Tensor> start, end; // per given: full-step values (B, ...)
  std::vector<at::Tensor> params;     // per segment parameter (B, ...)
  std::vector<int> unknown_of;        // per given: index into seg.unknowns of an old_state pair
  int max_level_reached = 0;

  /// Given values of `rows` for the span [a, b]; `old` holds the chained old_state values.
  std::vector<at::Tensor>
  tail(const at::Tensor & rows, double a, double b, const std::vector<at::Tensor> & old) const
  {
    std::vector<at::Tensor> t;
    for (std::size_t k = 0; k < seg.givens.size(); ++k)
    {
      const auto & g = seg.givens[k];
      if (g.role == "old_state")
        t.push_back(old[k]);
      else if (g.role == "cur_force" || g.role == "old_force")
      {
        const double tau = g.role == "cur_force" ? b : a;
        const auto s0 = start[k].index_select(0, rows), s1 = end[k].index_select(0, rows);
        t.push_back((s0 + tau * (s1 - s0)).contiguous());
      }
      else
        t.push_back(end[k].index_select(0, rows));
    }
    for (const auto & p : params)
      t.push_back(p.index_select(0, rows));
    return t;
  }

  at::Tensor solve_to(double a,
                      double b,
                      const at::Tensor & rows,
                      int level,
                      const std::vector<at::Tensor> & old,
                      const at::Tensor & guess)
  {
    max_level_reached = std::max(max_level_reached, level);
    SegmentProblem problem(seg, tail(rows, a, b, old), config.chunk_rows);
    auto masked = newton_solve_masked(problem, guess, config);
    auto u = masked.u;
    const auto failed = (~masked.converged).nonzero().squeeze(-1);
    if (failed.numel() == 0)
      return u;
    if (level >= seg.max_substepping_level)
      throw ConvergenceError("substepping exhausted: " + std::to_string(failed.numel()) +
                             " element(s) did not converge after " + std::to_string(level) +
                             " step halvings (max_substepping_level = " +
                             std::to_string(seg.max_substepping_level) + ")");
    const double mid = 0.5 * (a + b);
    std::vector<at::Tensor> old_f;
    for (const auto & o : old)
      old_f.push_back(o.defined() ? o.index_select(0, failed) : o);
    const auto rows_f = rows.index_select(0, failed);
    const auto g_f = guess.index_select(0, failed);
    const auto u_mid = solve_to(a, mid, rows_f, level + 1, old_f, g_f);
    // chain the old states from the midpoint solution
    for (std::size_t k = 0; k < seg.givens.size(); ++k)
      if (unknown_of[k] >= 0)
      {
        const auto & uv = seg.unknowns[unknown_of[k]];
        old_f[k] = u_mid.narrow(1, uv.offset, uv.size).reshape(old_f[k].sizes()).contiguous();
      }
    const auto u_end = solve_to(mid, b, rows_f, level + 1, old_f, u_mid);
    return u.index_copy(0, failed, u_end);
  }
};
} // namespace

at::Tensor
substep_solve(const ImplicitSegment & seg,
              const CallState & s,
              const std::vector<VarInfo> & vars,
              const SolverConfig & config,
              const at::Tensor & u0,
              bool & substepped)
{
  Substepper sub{seg, vars, config, {}, {}, {}, {}, 0};
  std::vector<at::Tensor> old(seg.givens.size());
  for (std::size_t k = 0; k < seg.givens.size(); ++k)
  {
    const auto & g = seg.givens[k];
    const auto & v = s.slots[g.slot];
    if (!v.defined())
      throw FatalError("implicit segment: given '" + vars[g.slot].name + "' is not available");
    // value(tau) = start + tau (end - start) over the full step: a force pair y~1 -> y
    const at::Tensor partner = g.pair >= 0 ? s.slots[g.pair] : at::Tensor();
    if (g.role == "cur_force")
    {
      sub.start.push_back(partner.defined() ? partner : v);
      sub.end.push_back(v);
    }
    else if (g.role == "old_force")
    {
      sub.start.push_back(v);
      sub.end.push_back(partner.defined() ? partner : v);
    }
    else
    {
      sub.start.push_back(v);
      sub.end.push_back(v);
    }
    int idx = -1;
    if (g.role == "old_state")
      for (std::size_t j = 0; j < seg.unknowns.size(); ++j)
        if (seg.unknowns[j].slot == g.pair)
          idx = int(j);
    sub.unknown_of.push_back(idx);
    if (g.role == "old_state")
      old[k] = v;
  }
  for (int i : seg.params)
    sub.params.push_back(s.params[i]);
  const auto rows = at::arange(s.nbatch, at::TensorOptions().dtype(at::kLong).device(u0.device()));
  auto u = sub.solve_to(0.0, 1.0, rows, 0, old, u0);
  substepped = sub.max_level_reached > 0;
  return u;
}
} // namespace neml2::aoti
