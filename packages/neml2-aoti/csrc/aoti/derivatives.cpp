// jacobian / jvp of ModelImpl (docs/design/runtime.md, "Jacobian and JVP").
//
// Blocks are carried as full per-site matrices (*B, *out_trailing, *in_trailing); the public
// jacobian returns the site-diagonal pairs as their diagonals (ARTIFACT.md §3.1).
// A single forward segment with a _jvp graph takes one graph call and returns its blocks. Any
// other model carries dstate[var] = d var / d(requested inputs), (Bflat or 1, size, M), through
// the segments: a forward segment adds block @ dstate[in] for each compiled pair, an implicit
// segment applies the implicit function theorem at its converged point.
#include <ATen/ATen.h>

#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"

namespace neml2::aoti
{
namespace
{
[[noreturn]] void
no_derivatives(const char * op)
{
  throw FatalError(std::string(op) +
                   ": the artifact has no compiled derivatives; recompile with neml2-compile "
                   "-d OUT:IN (or -d : for every output/input pair)");
}

/// (Bb, *trailing) block of a flat (Bb, rows, cols) matrix, with the call's batch restored.
at::Tensor
unflatten_block(const at::Tensor & flat,
                const std::vector<int64_t> & batch,
                int64_t ncall,
                const std::vector<int64_t> & out_tr,
                const std::vector<int64_t> & in_tr)
{
  const auto nbatch = ncall;
  std::vector<int64_t> shape = batch;
  shape.insert(shape.end(), out_tr.begin(), out_tr.end());
  shape.insert(shape.end(), in_tr.begin(), in_tr.end());
  if (flat.size(0) > nbatch)
    return flat.narrow(0, 0, nbatch).reshape(shape);
  if (flat.size(0) != nbatch)
  {
    std::vector<int64_t> full{nbatch, flat.size(1), flat.size(2)};
    return flat.expand(full).reshape(shape);
  }
  return flat.reshape(shape);
}
} // namespace

std::vector<int>
ModelImpl::requested_inputs() const
{
  std::vector<int> req;
  for (int id : input_slots)
    for (const auto & [o, i] : derivatives)
      if (i == vars[id].name)
      {
        req.push_back(id);
        break;
      }
  return req;
}

std::vector<at::Tensor>
ModelImpl::run_jvp(const ForwardSegment & seg, CallState & s) const
{
  if (!seg.jvp) // every block folded: the value graph and the constants
  {
    run_forward(seg, s);
    std::vector<at::Tensor> out;
    for (int id : seg.outputs)
      out.push_back(s.slots[id]);
    for (const auto & pr : seg.pairs)
      out.push_back(pr.constant);
    return out;
  }
  std::vector<at::Tensor> args;
  for (int id : seg.inputs)
    args.push_back(s.slots[id]);
  for (int p : seg.params)
    args.push_back(s.params[p]);
  auto out = seg.jvp->run(std::move(args), seg.outputs.size() + seg.pairs.size());
  for (std::size_t k = 0; k < seg.outputs.size(); ++k)
    s.slots[seg.outputs[k]] = out[k];
  return out;
}

bool
ModelImpl::fast_jacobian(CallState & s, VariablePairJacobian & J) const
{
  if (segments.size() != 1 || segments[0].implicit || !segments[0].fwd.has_jvp())
    return false;
  const auto & seg = segments[0].fwd;
  auto out = run_jvp(seg, s);
  for (std::size_t k = 0; k < seg.pairs.size(); ++k)
  {
    const auto & pr = seg.pairs[k];
    auto & block = out[seg.outputs.size() + k];
    const auto & vo = vars[pr.out];
    const auto & vi = vars[pr.in];
    if (pr.batch_independent && block.size(0) == 1)
    {
      // one constant block for every element: a broadcast view (*batch, *out, *in), no copy
      auto shape = s.batch;
      const auto to = vo.trailing(), ti = vi.trailing();
      shape.insert(shape.end(), to.begin(), to.end());
      shape.insert(shape.end(), ti.begin(), ti.end());
      std::vector<int64_t> one(to);
      one.insert(one.end(), ti.begin(), ti.end());
      J[vo.name][vi.name] = block.select(0, 0).reshape(one).expand(shape);
    }
    else
      J[vo.name][vi.name] = unflatten_block(block.reshape({block.size(0), vo.size, vi.size}),
                                            s.batch,
                                            s.ncall,
                                            vo.trailing(),
                                            vi.trailing());
  }
  return true;
}

std::vector<at::Tensor>
ModelImpl::run_with_carrier(CallState & s, const std::vector<int> & requested)
{
  int64_t M = 0;
  for (int id : requested)
    M += vars[id].size;
  std::vector<at::Tensor> dstate(vars.size());
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  int64_t col = 0;
  for (int id : requested)
  {
    const auto n = vars[id].size;
    auto seed = at::zeros({1, n, M}, opts);
    seed.narrow(2, col, n).copy_(at::eye(n, opts).unsqueeze(0));
    dstate[id] = seed;
    col += n;
  }
  for (std::size_t k = 0; k < segments.size(); ++k)
  {
    const auto & seg = segments[k];
    if (seg.implicit)
    {
      run_implicit(seg.imp, s, /*keep_jacobian=*/true);
      implicit_ift(seg.imp, s, dstate);
      continue;
    }
    const auto & f = seg.fwd;
    bool needed = false;
    for (int id : f.inputs)
      needed = needed || dstate[id].defined();
    if (!needed)
    {
      run_forward(f, s);
      continue;
    }
    if (!f.has_jvp())
      throw FatalError("segment " + std::to_string(k) +
                       " has no _jvp graph but lies on a requested derivative path; recompile "
                       "with neml2-compile -d");
    auto out = run_jvp(f, s);
    std::vector<at::Tensor> fresh(f.outputs.size());
    for (std::size_t q = 0; q < f.pairs.size(); ++q)
    {
      const auto & pr = f.pairs[q];
      if (!dstate[pr.in].defined())
        continue;
      auto & block = out[f.outputs.size() + q];
      const auto term = at::matmul(
          block.reshape({block.size(0), vars[pr.out].size, vars[pr.in].size}), dstate[pr.in]);
      for (std::size_t o = 0; o < f.outputs.size(); ++o)
        if (f.outputs[o] == pr.out)
          fresh[o] = fresh[o].defined() ? fresh[o] + term : term;
    }
    for (std::size_t o = 0; o < f.outputs.size(); ++o)
      dstate[f.outputs[o]] = fresh[o];
  }
  return dstate;
}

namespace
{
/// The site diagonal (*batch, *S, *out_base, *in_base) of a full block
/// (*batch, *S, *out_base, *S, *in_base): entry d out[b, s] / d in[b, s].
at::Tensor
site_diagonal_of(const at::Tensor & full, const VarInfo & vo, const VarInfo & vi)
{
  const auto n = c10::multiply_integers(vo.sub);
  const auto nb = full.dim() - static_cast<int64_t>(vo.trailing().size() + vi.trailing().size());
  std::vector<int64_t> flat(full.sizes().begin(), full.sizes().begin() + nb);
  auto shape = flat;
  flat.insert(flat.end(), {n, c10::multiply_integers(vo.base), n, c10::multiply_integers(vi.base)});
  shape.insert(shape.end(), vo.sub.begin(), vo.sub.end());
  shape.insert(shape.end(), vo.base.begin(), vo.base.end());
  shape.insert(shape.end(), vi.base.begin(), vi.base.end());
  return full.reshape(flat).diagonal(0, nb, nb + 2).movedim(-1, nb).reshape(shape);
}
} // namespace

std::vector<int64_t>
ModelImpl::block_shape(const std::string & out, const std::string & in) const
{
  const auto & vo = vars[slot_of.at(out)];
  const auto & vi = vars[slot_of.at(in)];
  auto shape = vo.trailing();
  if (site_diagonal.count({out, in}))
    shape.insert(shape.end(), vi.base.begin(), vi.base.end());
  else
  {
    const auto ti = vi.trailing();
    shape.insert(shape.end(), ti.begin(), ti.end());
  }
  return shape;
}

JacobianResult
ModelImpl::jacobian(const TensorMap & inputs, const TensorMap & overrides)
{
  auto result = jacobian_full(inputs, overrides);
  for (const auto & [o, i] : site_diagonal)
  {
    auto & block = result.second.at(o).at(i);
    block = site_diagonal_of(block, vars[slot_of.at(o)], vars[slot_of.at(i)]);
  }
  return result;
}

JacobianResult
ModelImpl::jacobian_full(const TensorMap & inputs, const TensorMap & overrides)
{
  log.clear();
  if (derivatives.empty())
    no_derivatives("jacobian");
  auto s = prepare(inputs, overrides);
  VariablePairJacobian J;
  if (s.ncall == 0)
  {
    for (const auto & [o, i] : derivatives)
    {
      auto tr = vars[slot_of.at(o)].trailing();
      const auto ti = vars[slot_of.at(i)].trailing();
      tr.insert(tr.end(), ti.begin(), ti.end());
      J[o][i] = empty_of(s, tr);
    }
    return {empty_outputs(s), std::move(J)};
  }
  if (fast_jacobian(s, J))
    return {collect_outputs(s), std::move(J)};
  const auto req = requested_inputs();
  auto dstate = run_with_carrier(s, req);
  std::map<std::string, int64_t> col;
  int64_t c = 0;
  for (int id : req)
  {
    col[vars[id].name] = c;
    c += vars[id].size;
  }
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  for (const auto & [o, i] : derivatives)
  {
    const int so = slot_of.at(o), si = slot_of.at(i);
    const auto & vo = vars[so];
    const auto & vi = vars[si];
    at::Tensor flat = dstate[so].defined() ? dstate[so].narrow(2, col.at(i), vi.size)
                                           : at::zeros({1, vo.size, vi.size}, opts);
    J[o][i] = unflatten_block(flat, s.batch, s.ncall, vo.trailing(), vi.trailing());
  }
  return {collect_outputs(s), std::move(J)};
}

JvpResult
ModelImpl::jvp(const TensorMap & inputs, const TensorMap & tangents, const TensorMap & overrides)
{
  if (derivatives.empty())
    no_derivatives("jvp");
  for (const auto & [name, t] : tangents)
  {
    auto it = slot_of.find(name);
    bool is_input = false;
    for (const auto & n : input_names)
      is_input = is_input || n == name;
    if (it == slot_of.end() || !is_input)
      throw FatalError("jvp: tangent '" + name + "' is not an input of the model");
    const auto & v = vars[it->second];
    const auto tr = v.trailing();
    const auto nt = static_cast<int64_t>(tr.size());
    if (!t.defined() || t.dim() < nt || t.sizes().slice(t.dim() - nt) != c10::IntArrayRef(tr))
      throw FatalError("jvp: tangent '" + name + "' has shape " +
                       (t.defined() ? format_shape(t.sizes()) : std::string("undefined")) +
                       ", expected trailing shape " + format_shape(tr));
    if (t.scalar_type() != dtype || t.device().type() != device.type())
      throw FatalError("jvp: tangent '" + name + "' must be " + c10::toString(dtype) + " on " +
                       device.str());
  }
  auto [outputs, J] = jacobian_full(inputs, overrides);
  TensorMap result;
  for (const auto & [o, row] : J)
  {
    const auto & vo = vars[slot_of.at(o)];
    at::Tensor acc;
    for (const auto & [i, block] : row)
    {
      auto it = tangents.find(i);
      if (it == tangents.end())
        continue;
      const auto & vi = vars[slot_of.at(i)];
      const auto nb_out = static_cast<int64_t>(vo.trailing().size());
      const auto nb_in = static_cast<int64_t>(vi.trailing().size());
      // block (*Bb, *out, *in) . t (*Bt, *in): contract the in-axes, broadcasting the batches
      const auto lead_b = block.dim() - nb_out - nb_in;
      std::vector<int64_t> bshape(block.sizes().begin(), block.sizes().begin() + lead_b);
      const auto & t = it->second;
      std::vector<int64_t> tlead(t.sizes().begin(), t.sizes().end() - nb_in);
      const auto batch = at::infer_size(bshape, tlead);
      auto sh_t = tlead, full_t = batch;
      sh_t.push_back(vi.size);
      full_t.push_back(vi.size);
      const auto tflat = t.reshape(sh_t).expand(full_t).reshape({-1, vi.size, 1});
      auto sh_b = bshape, full_b = batch;
      for (auto * v : {&sh_b, &full_b})
      {
        v->push_back(vo.size);
        v->push_back(vi.size);
      }
      const auto bflat = block.reshape(sh_b).expand(full_b).reshape({-1, vo.size, vi.size});
      auto shape = batch;
      const auto tr = vo.trailing();
      shape.insert(shape.end(), tr.begin(), tr.end());
      const auto prod = at::bmm(bflat, tflat).reshape(shape);
      acc = acc.defined() ? acc + prod : prod;
    }
    if (!acc.defined())
    {
      const auto & out = outputs.at(o);
      acc = at::zeros_like(out);
    }
    result[o] = acc;
  }
  return {std::move(outputs), std::move(result)};
}
} // namespace neml2::aoti
