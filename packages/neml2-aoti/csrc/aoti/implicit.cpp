// Implicit segments of ModelImpl (docs/design/runtime.md, "Implicit segment"):
// warm start -> predictor (optionally runtime-looped) -> pack -> Newton (one _jacobian graph
// call giving (b, A) + native batched dense solve per iteration) -> unpack; IFT sensitivities.
#include <ATen/ATen.h>

#include "model_impl.h"
#include "newton.h"
#include "segment_problem.h"
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace
{
/// Concatenate the members of a packed layout as a flat (B, N) tensor.
at::Tensor
pack(const std::vector<PackedVar> & layout,
     const std::vector<at::Tensor> & slots,
     const std::vector<VarInfo> & vars,
     int64_t B,
     const char * what)
{
  std::vector<at::Tensor> parts;
  parts.reserve(layout.size());
  for (const auto & p : layout)
  {
    const auto & t = slots[p.slot];
    if (!t.defined())
      throw FatalError(std::string("implicit segment: ") + what + " '" + vars[p.slot].name +
                       "' is not available (neither an input nor produced by an earlier segment)");
    parts.push_back(t.reshape({B, p.size}));
  }
  if (parts.size() == 1)
    return parts[0].is_contiguous() ? parts[0] : parts[0].contiguous();
  return at::cat(parts, -1);
}

void
unpack(const std::vector<PackedVar> & layout,
       const at::Tensor & flat,
       std::vector<at::Tensor> & slots,
       const std::vector<VarInfo> & vars,
       int64_t B)
{
  for (const auto & p : layout)
  {
    std::vector<int64_t> shape{B};
    const auto tr = vars[p.slot].trailing();
    shape.insert(shape.end(), tr.begin(), tr.end());
    slots[p.slot] =
        layout.size() == 1 ? flat.view(shape) : flat.narrow(-1, p.offset, p.size).reshape(shape);
  }
}

/// A at the converged point: Newton's last evaluation when it was there, else one graph call
/// whose result is kept in the call state (input and parameter IFT then share it).
RowBlocks
converged_jacobian(const ImplicitSegment & seg,
                   CallState & s,
                   SegmentProblem & problem,
                   const at::Tensor & u)
{
  auto it = s.converged.find(&seg);
  if (it != s.converged.end() && it->second.second.defined() && at::equal(it->second.first, u))
    return it->second.second;
  auto A = problem.residual_and_jacobian(u).second;
  s.converged[&seg] = {u, A};
  return A;
}
} // namespace

void
ModelImpl::run_implicit(const ImplicitSegment & seg, CallState & s, bool keep_jacobian)
{
  const int64_t B = s.nbatch;
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  // warm start: an unknown starts from its guess input (or its incoming value), zeros when absent
  for (const auto & [input, unknown] : seg.guesses)
    if (input != unknown && s.slots[input].defined())
      s.slots[unknown] = s.slots[input];
  for (const auto & u : seg.unknowns)
    if (!s.slots[u.slot].defined())
    {
      std::vector<int64_t> shape{B};
      const auto tr = vars[u.slot].trailing();
      shape.insert(shape.end(), tr.begin(), tr.end());
      s.slots[u.slot] = at::zeros(shape, opts);
    }
  for (std::size_t k = 0; k < seg.predictor_copy_from.size(); ++k)
  {
    const int from = seg.predictor_copy_from[k];
    if (!s.slots[from].defined())
      throw FatalError("predictor input '" + vars[from].name + "' is not available");
    s.slots[seg.predictor_outputs[k]] = s.slots[from];
  }
  if (seg.predictor)
  {
    const int64_t calls =
        seg.feedback_input >= 0 ? std::max<int64_t>(seg.feedback_iterations, 1) : 1;
    for (int64_t k = 0; k < calls; ++k)
    {
      std::vector<at::Tensor> args;
      for (int id : seg.predictor_inputs)
      {
        if (!s.slots[id].defined())
          throw FatalError("predictor input '" + vars[id].name + "' is not available");
        args.push_back(s.slots[id]);
      }
      auto out = seg.predictor->run(std::move(args), seg.predictor_outputs.size());
      for (std::size_t o = 0; o < out.size(); ++o)
        s.slots[seg.predictor_outputs[o]] = std::move(out[o]);
      if (seg.feedback_input >= 0)
        s.slots[seg.feedback_input] = s.slots[seg.feedback_output];
    }
  }
  auto u0 = pack(seg.unknowns, s.slots, vars, B, "unknown");
  SegmentProblem problem(seg, s, vars, chunk_rows(seg));
  problem.keep_jacobian(keep_jacobian);
  NewtonTrace trace(config.collect_log);
  at::Tensor u;
  substepped = false;
  try
  {
    if (seg.max_substepping_level > 0)
    {
      auto cfg = config;
      cfg.chunk_rows = chunk_rows(seg);
      u = substep_solve(seg, s, vars, cfg, u0, substepped);
    }
    else
      u = newton_solve(problem, u0, config, trace);
  }
  catch (const ConvergenceError & e)
  {
    // the same recoverable error and failure data, naming the model whose solve failed
    const std::string msg = label() + ": " + e.what();
    if (e.has_failure_data())
      throw ConvergenceError(msg, e.converged_mask(), e.unknowns());
    throw ConvergenceError(msg);
  }
  if (config.collect_log)
    log.insert(log.end(), trace.lines.begin(), trace.lines.end());
  s.converged[&seg] = {u, problem.jacobian_if_at(u)};
  unpack(seg.unknowns, u, s.slots, vars, B);
}

void
ModelImpl::implicit_ift(const ImplicitSegment & seg,
                        CallState & s,
                        std::vector<at::Tensor> & dstate) const
{
  int64_t M = 0;
  bool any = false;
  for (const auto & g : seg.given_columns)
    if (dstate[g.slot].defined())
    {
      any = true;
      M = dstate[g.slot].size(2);
    }
  for (const auto & u : seg.unknowns)
    dstate[u.slot] = at::Tensor(); // the converged point does not depend on the warm start
  if (!any)
    return;
  if (substepped)
    throw FatalError("derivatives through a substepped implicit solve are not available (the "
                     "solve needed step halvings); reduce the step or use forward only");
  if (!seg.jacobian_given)
    throw FatalError("implicit segment lies on a requested derivative path but has no "
                     "_jacobian_given graph; recompile with neml2-compile -d");
  const int64_t B = s.nbatch;
  const auto u = pack(seg.unknowns, s.slots, vars, B, "unknown");
  SegmentProblem problem(seg, s, vars, chunk_rows(seg));
  const auto A = converged_jacobian(seg, s, problem, u);
  const auto Bg = problem.run_rows(*seg.jacobian_given, u, 1)[0].reshape(
      {B, seg.n_unknown, seg.n_given_columns});
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  auto dg = at::zeros({B, seg.n_given_columns, M}, opts);
  for (const auto & gv : seg.given_columns)
    if (dstate[gv.slot].defined())
      dg.narrow(1, gv.offset, gv.size).copy_(dstate[gv.slot].expand({B, gv.size, M}));
  // du/dg = -A^{-1} (dr/dg dg): the product is this call's own, so it is solved and negated in
  // place (two fewer (B, N, M) buffers)
  const auto du = A.solve(at::bmm(Bg, dg), /*overwrite_b=*/true).neg_();
  for (const auto & uv : seg.unknowns)
    dstate[uv.slot] = du.narrow(1, uv.offset, uv.size);
}

void
ModelImpl::implicit_param_ift(const ImplicitSegment & seg,
                              CallState & s,
                              std::vector<at::Tensor> & dparam,
                              const std::vector<int64_t> & pcol,
                              int64_t P) const
{
  implicit_ift(seg, s, dparam); // indirect term through the givens (dparam as the carrier)
  bool direct = false;
  for (int i : seg.params)
    direct = direct || pcol[i] >= 0;
  if (!direct)
    return;
  if (!seg.dr_dparam)
    throw FatalError("implicit segment depends on a differentiated parameter but has no "
                     "_dr_dparam graph; recompile with neml2-compile -d OUT:PARAM");
  const int64_t B = s.nbatch;
  const auto u = pack(seg.unknowns, s.slots, vars, B, "unknown");
  SegmentProblem problem(seg, s, vars, chunk_rows(seg));
  const auto A = converged_jacobian(seg, s, problem, u);
  const auto Bp =
      problem.run_rows(*seg.dr_dparam, u, 1)[0].reshape({B, seg.n_unknown, seg.n_param_columns});
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  auto drdp = at::zeros({B, seg.n_unknown, P}, opts);
  for (const auto & c : seg.param_columns)
    if (pcol[c.slot] >= 0)
      drdp.narrow(2, pcol[c.slot], c.size).copy_(Bp.narrow(2, c.offset, c.size));
  const auto du = A.solve(drdp, /*overwrite_b=*/true).neg_(); // drdp is this call's own
  for (const auto & uv : seg.unknowns)
  {
    auto term = du.narrow(1, uv.offset, uv.size);
    auto & d = dparam[uv.slot];
    d = d.defined() ? d + term : term;
  }
}
} // namespace neml2::aoti
