// param_jacobian / param_vjp of ModelImpl (docs/design/runtime.md, "Parameter derivatives").
//
// d(out)/d(theta) for the compiled [out, param] pairs: a forward segment's _pjac graph gives its
// direct blocks; an implicit segment's _dr_dparam graph gives dr/dtheta, and the IFT gives
// du/dtheta = -A^{-1} dr/dtheta. param_vjp contracts the blocks with the cotangents and sums
// over the batch for a global (unbatched) parameter.
#include <ATen/ATen.h>

#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"

namespace neml2::aoti
{
namespace
{
[[noreturn]] void
no_param_derivatives(const char * op)
{
  throw FatalError(std::string(op) +
                   ": the artifact has no compiled parameter derivatives; recompile with "
                   "neml2-compile -p PARAM -d OUT:PARAM");
}
} // namespace

JacobianResult
ModelImpl::param_jacobian(const TensorMap & inputs, const TensorMap & overrides)
{
  log.clear();
  if (parameter_derivatives.empty())
    no_param_derivatives("param_jacobian");
  auto s = prepare(inputs, overrides);
  if (s.ncall == 0)
  {
    VariablePairJacobian J;
    for (const auto & [o, pname] : parameter_derivatives)
    {
      auto tr = vars[slot_of.at(o)].trailing();
      for (const auto & p : params)
        if (p.name == pname)
          tr.insert(tr.end(), p.base.begin(), p.base.end());
      J[o][pname] = empty_of(s, tr);
    }
    return {empty_outputs(s), std::move(J)};
  }
  // dparam[slot]: (Bflat, size, P) with P the total size of the differentiated parameters
  std::vector<int> pidx;
  std::vector<int64_t> pcol;
  int64_t P = 0;
  for (std::size_t i = 0; i < params.size(); ++i)
  {
    bool used = false;
    for (const auto & [o, p] : parameter_derivatives)
      used = used || p == params[i].name;
    pcol.push_back(used ? P : -1);
    if (used)
    {
      pidx.push_back(int(i));
      P += params[i].size;
    }
  }
  std::vector<at::Tensor> dstate(vars.size());
  for (std::size_t k = 0; k < segments.size(); ++k)
  {
    const auto & seg = segments[k];
    if (seg.implicit)
    {
      run_implicit(seg.imp, s, /*keep_jacobian=*/true);
      implicit_param_ift(seg.imp, s, dstate, pcol, P);
      continue;
    }
    const auto & f = seg.fwd;
    bool indirect = false;
    for (int id : f.inputs)
      indirect = indirect || dstate[id].defined();
    if (indirect && !f.has_jvp())
      throw FatalError("segment " + std::to_string(k) +
                       " has no _jvp graph but lies on a requested parameter-derivative path; "
                       "recompile with neml2-compile -d");
    std::vector<at::Tensor> fresh(f.outputs.size());
    auto add = [&](int out, const at::Tensor & term)
    {
      for (std::size_t o = 0; o < f.outputs.size(); ++o)
        if (f.outputs[o] == out)
          fresh[o] = fresh[o].defined() ? fresh[o] + term : term;
    };
    if (indirect)
    {
      auto out = run_jvp(f, s);
      for (std::size_t q = 0; q < f.pairs.size(); ++q)
      {
        const auto & pr = f.pairs[q];
        if (!dstate[pr.in].defined())
          continue;
        auto & b = out[f.outputs.size() + q];
        add(pr.out,
            at::matmul(b.reshape({b.size(0), vars[pr.out].size, vars[pr.in].size}), dstate[pr.in]));
      }
    }
    else
      run_forward(f, s);
    if (f.pjac && !f.param_pairs.empty())
    {
      std::vector<at::Tensor> args;
      for (int id : f.inputs)
        args.push_back(s.slots[id]);
      for (int p : f.params)
        args.push_back(s.params[p]);
      auto blocks = f.pjac->run(std::move(args), f.param_pairs.size());
      for (std::size_t q = 0; q < f.param_pairs.size(); ++q)
      {
        const auto & pr = f.param_pairs[q];
        if (pcol[pr.in] < 0)
          continue;
        const auto no = vars[pr.out].size, np = params[pr.in].size;
        auto b = blocks[q].reshape({blocks[q].size(0), no, np});
        auto term = at::zeros({b.size(0), no, P}, b.options());
        term.narrow(2, pcol[pr.in], np).copy_(b);
        add(pr.out, term);
      }
    }
    for (std::size_t o = 0; o < f.outputs.size(); ++o)
      if (fresh[o].defined())
        dstate[f.outputs[o]] = fresh[o];
  }
  VariablePairJacobian J;
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  for (const auto & [o, pname] : parameter_derivatives)
  {
    const int so = slot_of.at(o);
    std::size_t pi = 0;
    while (params[pi].name != pname)
      ++pi;
    const auto & vo = vars[so];
    const auto np = params[pi].size;
    auto flat = dstate[so].defined() ? dstate[so].narrow(2, pcol[pi], np)
                                     : at::zeros({s.nbatch, vo.size, np}, opts);
    auto shape = s.batch;
    const auto tr = vo.trailing();
    shape.insert(shape.end(), tr.begin(), tr.end());
    shape.insert(shape.end(), params[pi].base.begin(), params[pi].base.end());
    J[o][pname] = s.rows(flat.expand({s.nbatch, vo.size, np})).reshape(shape);
  }
  return {collect_outputs(s), std::move(J)};
}

TensorMap
ModelImpl::param_vjp(const TensorMap & inputs,
                     const TensorMap & cotangents,
                     const TensorMap & overrides)
{
  if (parameter_derivatives.empty())
    no_param_derivatives("param_vjp");
  for (const auto & [name, c] : cotangents)
  {
    bool ok = false;
    for (const auto & n : output_names)
      ok = ok || n == name;
    if (!ok)
      throw FatalError("param_vjp: cotangent '" + name + "' is not an output of the model");
  }
  const auto J = param_jacobian(inputs, overrides).second;
  TensorMap grads;
  for (const auto & [o, row] : J)
  {
    auto it = cotangents.find(o);
    if (it == cotangents.end())
      continue;
    const auto & vo = vars[slot_of.at(o)];
    for (const auto & [pname, block] : row)
    {
      std::size_t pi = 0;
      while (params[pi].name != pname)
        ++pi;
      const auto np = params[pi].size;
      auto b = block.reshape({-1, vo.size, np});
      auto c = it->second.expand(block.sizes().slice(0, block.dim() - params[pi].base.size()))
                   .reshape({-1, vo.size, 1});
      auto g = (b * c).sum(1); // (Bflat, np)
      auto ov = overrides.find(pname);
      const auto & value = ov != overrides.end() ? ov->second : named_parameters.at(pname);
      const bool batched = value.dim() > int64_t(params[pi].base.size());
      std::vector<int64_t> shape;
      if (batched)
      {
        shape.assign(block.sizes().begin(),
                     block.sizes().begin() + (block.dim() - int64_t(vo.trailing().size()) -
                                              int64_t(params[pi].base.size())));
        shape.insert(shape.end(), params[pi].base.begin(), params[pi].base.end());
        g = g.reshape(shape);
      }
      else
        g = g.sum(0).reshape(params[pi].base);
      auto & slot = grads[pname];
      slot = slot.defined() ? slot + g : g;
    }
  }
  return grads;
}
} // namespace neml2::aoti
