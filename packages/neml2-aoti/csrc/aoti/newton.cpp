#include "newton.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/env.h"
#include "neml2/csrc/aoti/linalg.h"
#include "neml2/csrc/aoti/log.h"

namespace neml2::aoti
{
std::string
sci(double x)
{
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%e", x);
  return buf;
}

at::Tensor
dense_solve(const at::Tensor & A, const at::Tensor & b, bool overwrite_b)
{
  return batched_dense_solve(A, b, std::nullopt, overwrite_b);
}

at::Tensor
RowBlocks::solve(const at::Tensor & b, bool overwrite_b) const
{
  if (_blocks.size() == 1)
    return dense_solve(_blocks.front(), b, overwrite_b);
  std::vector<at::Tensor> parts;
  parts.reserve(_blocks.size());
  int64_t r0 = 0;
  bool in_b = true; // every block solved in its own rows of b
  for (const auto & A : _blocks)
  {
    const int64_t rows = A.size(0);
    const auto rhs = b.narrow(0, r0, rows);
    parts.push_back(dense_solve(A, rhs, overwrite_b));
    in_b = in_b && parts.back().is_same(rhs);
    r0 += rows;
  }
  if (r0 != b.size(0))
    throw FatalError("RowBlocks::solve: the blocks hold " + std::to_string(r0) +
                     " rows but the right-hand side has " + std::to_string(b.size(0)));
  return in_b ? b : at::cat(parts, 0);
}

namespace
{
/// |v| over the last axis. A compiled graph stores its residual batch-innermost, where ATen's
/// norm kernel builds an iterator per batch row (about 1 ms per 10^4 rows of 19 here) while a
/// sum of squares reduces across the batch in vectors (0.12 ms); both are sqrt(sum v_i^2).
at::Tensor
vnorm(const at::Tensor & v)
{
  if (v.dim() > 0 && v.size(-1) > 1 && v.stride(-1) != 1)
    return v.square().sum(-1).sqrt();
  return at::linalg_vector_norm(v, 2, {-1});
}

double
max_of(const at::Tensor & t)
{
  return t.numel() ? t.max().item<double>() : 0.0;
}

struct Flags
{
  bool finite = true;
  bool converged = true;
  bool likely = true;
};

/// rules.status_flags: one reduction, one host sync.
Flags
status(const at::Tensor & nb, const at::Tensor & tau)
{
  Flags f;
  if (nb.numel() == 0)
    return f;
  const double m = (nb - tau).max().item<double>();
  f.finite = std::isfinite(m);
  f.converged = m < 0.0;
  f.likely = false;
  return f;
}

/// rules.status_flags_predicted: (finite, converged, next iterate predicted converged), one sync.
Flags
status_predicted(const at::Tensor & nb, const at::Tensor & nb_prev, const at::Tensor & tau)
{
  Flags f;
  if (nb.numel() == 0)
    return f;
  const auto ratio = nb / nb_prev;
  const auto pred = nb * ratio * ratio;
  const auto both = at::stack({(nb - tau).max(), (pred - tau).max()}).to(at::kCPU, at::kDouble);
  const double * p = both.data_ptr<double>();
  f.finite = std::isfinite(p[0]);
  f.converged = p[0] < 0.0;
  f.likely = p[1] < 0.0;
  return f;
}

std::string
reason(const at::Tensor & nb, const at::Tensor & nb0, double atol, double rtol)
{
  const auto both = at::stack({(nb < atol).all(), (nb < rtol * nb0).all()}).cpu();
  const bool abs_all = both[0].item<bool>(), rel_all = both[1].item<bool>();
  if (abs_all && rel_all)
    return "both";
  if (abs_all)
    return "abs_tol";
  return rel_all ? "rel_tol" : "mixed";
}

/// One Newton iterate: u, b and (when computed with it) A and the step A^{-1} b.
struct Point
{
  at::Tensor u, b;
  RowBlocks A;
  at::Tensor du;
};

/// Evaluate b (and, unless lazy, A and the step) at u.
Point
evaluate(NewtonProblem & p, const at::Tensor & u, bool lazy)
{
  if (lazy)
    return {u, p.residual(u), RowBlocks(), at::Tensor()};
  auto e = p.residual_jacobian_step(u);
  return {u, std::move(e.b), std::move(e.A), std::move(e.du)};
}

/// The Newton step A^{-1} b at x (solved with its evaluation when A came with it).
at::Tensor
step_at(NewtonProblem & p, const Point & x)
{
  if (x.du.defined())
    return x.du;
  return (x.A.defined() ? x.A : p.residual_and_jacobian(x.u).second).solve(x.b);
}

/// The update along du: the full step, or NewtonWithLineSearch's per-element line search.
Point
update(NewtonProblem & p,
       const Point & x,
       const at::Tensor & du,
       const SolverConfig & c,
       bool lazy,
       NewtonTrace * trace)
{
  const int64_t n_trials = c.ls_max_iters - 1;
  if (n_trials < 1)
    return evaluate(p, x.u + du, lazy);
  const auto nb2 = x.b.square().sum(-1);
  const auto bdu = (x.b * du).sum(-1);
  auto alpha = at::ones_like(nb2);
  at::Tensor u_t, b_t;
  for (int64_t k = 1; k <= n_trials; ++k)
  {
    u_t = x.u + alpha.unsqueeze(-1) * du;
    b_t = p.residual(u_t);
    const auto nbt2 = b_t.square().sum(-1);
    const auto crit = c.ls_type == "STRONG_WOLFE" ? (1.0 - c.ls_c * alpha) * nb2
                                                  : nb2 - 2.0 * c.ls_c * alpha * bdu;
    const auto accept = (nbt2 <= crit) | (nbt2 <= c.atol * c.atol);
    if (trace && trace->debug_on)
    {
      char buf[160];
      std::snprintf(buf,
                    sizeof(buf),
                    "  LS ITERATION %3lld, min(alpha) = %e, max |R| = %e",
                    static_cast<long long>(k),
                    alpha.min().item<double>(),
                    std::sqrt(nbt2.max().item<double>()));
      trace->write(true, buf);
    }
    if (k == n_trials || accept.all().item<bool>())
      break;
    alpha = at::where(accept, alpha, alpha / c.ls_cutback);
  }
  return {u_t, b_t, RowBlocks(), at::Tensor()};
}

void
finish(NewtonTrace & trace, const std::string & what)
{
  if (trace.info_on)
  {
    trace.write(false, what);
    trace.write(false, "---- end newton solve ----");
  }
}

[[noreturn]] void
raise(const std::string & msg, NewtonProblem & p, const at::Tensor & u0, const SolverConfig & c)
{
  if (capture_solve_failure())
  {
    auto masked = newton_solve_masked(p, u0, c);
    throw ConvergenceError(msg, masked.converged, masked.u);
  }
  throw ConvergenceError(msg);
}
} // namespace

NewtonTrace::NewtonTrace(bool collect_)
  : collect(collect_)
{
  // the channel "newton" of neml2/csrc/aoti/log.h (NEML2_LOGS, then the host's defaults)
  const auto level = log::effective_level(log::Channel::Newton);
  info_on = level >= log::Level::Info;
  debug_on = level >= log::Level::Debug;
}

void
NewtonTrace::write(bool debug, const std::string & msg)
{
  const auto level = debug ? log::Level::Debug : log::Level::Info;
  if (collect)
    lines.push_back(log::format(log::Channel::Newton, level, msg));
  else
    log::emit(log::Channel::Newton, level, msg);
}

at::Tensor
newton_solve(NewtonProblem & p, const at::Tensor & u0, const SolverConfig & c, NewtonTrace & trace)
{
  if (trace.info_on)
    trace.write(false, "---- begin newton solve ----");
  Point x = evaluate(p, u0, false);
  const auto nb0 = vnorm(x.b);
  auto nb = nb0;
  const auto tau = at::clamp_min(c.rtol * nb0, c.atol);
  Flags f = status(nb, tau);
  bool lazy = false;
  int64_t i = 0;
  while (true)
  {
    if (trace.debug_on)
      trace.write(true,
                  "ITERATION " +
                      std::string(i < 10    ? "  "
                                  : i < 100 ? " "
                                            : "") +
                      std::to_string(i) + ", |R| = " + sci(max_of(nb)) +
                      ", |R0| = " + sci(max_of(nb0)));
    if (!f.finite)
    {
      const auto msg = "Newton diverged at iter " + std::to_string(i) +
                       " (non-finite residual; max |R0| = " + sci(max_of(nb0)) + ")";
      finish(trace, "diverged at iter " + std::to_string(i) + " (non-finite residual)");
      raise(msg, p, u0, c);
    }
    if (f.converged)
    {
      if (trace.info_on)
        finish(trace,
               (i == 0 ? "converged at predictor (iters=0, reason="
                       : "converged (iters=" + std::to_string(i) + ", reason=") +
                   reason(nb, nb0, c.atol, c.rtol) + ")");
      return x.u;
    }
    ++i;
    if (i >= c.miters)
      break;
    const auto du = step_at(p, x);
    // the old A is not needed past its step: freed before the next evaluation allocates one
    x.A = RowBlocks();
    x.du = at::Tensor();
    x = update(p, x, du, c, lazy, &trace);
    const auto nb_prev = nb;
    nb = vnorm(x.b);
    f = status_predicted(nb, nb_prev, tau);
    lazy = f.likely;
  }
  const double nb_max = max_of(nb), nb0_max = max_of(nb0);
  finish(trace,
         "NOT converged (iters=" + std::to_string(i - 1) + ", max |R| = " + sci(nb_max) +
             ", |R0| = " + sci(nb0_max) + ")");
  raise("Newton failed to converge in " + std::to_string(c.miters) +
            " iterations (max |R| = " + sci(nb_max) + ", |R0| = " + sci(nb0_max) +
            ", atol = " + sci(c.atol) + ", rtol = " + sci(c.rtol) + ")",
        p,
        u0,
        c);
}

MaskedSolve
newton_solve_masked(NewtonProblem & p, const at::Tensor & u0, const SolverConfig & c)
{
  Point x = evaluate(p, u0, false);
  const auto nb0 = vnorm(x.b);
  auto conv = nb0 < c.atol;
  auto frozen = conv | ~at::isfinite(nb0);
  int64_t its = 0;
  for (int64_t k = 1; k < c.miters; ++k)
  {
    if (frozen.all().item<bool>())
      break;
    const auto active = ~frozen;
    const auto act = active.unsqueeze(-1);
    auto du = at::where(act, step_at(p, x), at::zeros_like(x.b));
    Point y = update(p, x, du, c, false, nullptr);
    x.u = at::where(act, y.u, x.u);
    x.b = at::where(act, y.b, x.b);
    // frozen rows keep their b but take y's A: their step is zeroed above, whatever it is
    x.A = y.A;
    x.du = y.du;
    ++its;
    const auto nb = vnorm(x.b);
    const auto ok = (nb < c.atol) |
                    ((nb < c.rtol * nb0) & (vnorm(du) < c.substep_del_tol * (vnorm(x.u) + c.atol)));
    conv = conv | (ok & active);
    frozen = conv | ~at::isfinite(nb);
  }
  return {x.u, conv, its};
}
} // namespace neml2::aoti
