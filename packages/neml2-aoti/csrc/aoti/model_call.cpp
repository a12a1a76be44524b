// Per-call machinery of ModelImpl: input canonicalization, parameters, forward segments, outputs.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>

#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"

namespace neml2::aoti
{
std::vector<int64_t>
VarInfo::trailing() const
{
  auto t = sub;
  t.insert(t.end(), base.begin(), base.end());
  return t;
}

namespace
{
bool
device_ok(const c10::Device & expected, const c10::Device & actual)
{
  return expected.type() == actual.type() &&
         (!expected.has_index() || expected.index() == actual.index());
}
} // namespace

CallState
ModelImpl::prepare(const TensorMap & inputs, const TensorMap & overrides) const
{
  const auto n = input_slots.size();
  // The checked inputs, as views (*lead, *trailing); any problem defers to canonicalize_inputs,
  // whose FatalError names the variable, the expected and the actual value.
  auto slow = [&]() -> CallState
  {
    CanonicalOptions options;
    options.sub_batch_shapes = input_sub;
    canonicalize_inputs(inputs, input_names, input_base, device, dtype, options);
    throw FatalError("inputs rejected (internal: fast and canonical checks disagree)");
  };
  if (inputs.size() != n)
    return slow();
  std::vector<const at::Tensor *> vals(n);
  std::vector<int64_t> batch;
  bool same = true;
  for (std::size_t i = 0; i < n; ++i)
  {
    auto it = inputs.find(input_names[i]);
    if (it == inputs.end())
      return slow();
    const at::Tensor & v = it->second;
    const auto & var = vars[input_slots[i]];
    const auto nt = static_cast<int64_t>(var.sub.size() + var.base.size());
    if (!v.defined() || v.scalar_type() != dtype || !device_ok(device, v.device()) || v.dim() < nt)
      return slow();
    const auto sizes = v.sizes();
    for (int64_t k = 0; k < nt; ++k)
      if (sizes[v.dim() - nt + k] !=
          (k < int64_t(var.sub.size()) ? var.sub[k] : var.base[k - var.sub.size()]))
        return slow();
    vals[i] = &v;
    const auto lead = v.dim() == nt ? c10::IntArrayRef() : sizes.slice(0, v.dim() - nt);
    if (i == 0)
      batch = lead.vec();
    else if (lead != c10::IntArrayRef(batch))
    {
      same = false;
      try
      {
        batch = at::infer_size(batch, lead);
      }
      catch (const std::exception &)
      {
        return slow();
      }
    }
  }
  // batch () (no input has a batch axis) is one row for the graphs; outputs keep batch ()
  CallState s;
  s.slots.resize(vars.size());
  s.batch = batch;
  s.nbatch = prod(batch);
  s.ncall = s.nbatch;
  if (fixed_batch >= 0 && s.nbatch != fixed_batch)
    throw FatalError("the artifact's graphs were traced for a fixed batch of " +
                     std::to_string(fixed_batch) + " elements, the call has " +
                     std::to_string(s.nbatch) + "; recompile with neml2-compile --dynamic-batch");
  // an empty batch runs no graph (see forward), so it is never padded
  const bool pad = s.nbatch > 0 && s.nbatch < min_batch;
  if (pad)
  {
    if (s.nbatch != 1)
      throw FatalError("batch of " + std::to_string(s.nbatch) +
                       " elements is below the "
                       "artifact's min_batch " +
                       std::to_string(min_batch));
    s.nbatch = min_batch;
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    const auto & var = vars[input_slots[i]];
    const at::Tensor & v = *vals[i];
    const auto nt = static_cast<int64_t>(var.sub.size() + var.base.size());
    std::vector<int64_t> flat{s.nbatch};
    flat.insert(flat.end(), v.sizes().end() - nt, v.sizes().end());
    if (pad)
    {
      std::vector<int64_t> one{1};
      one.insert(one.end(), v.sizes().end() - nt, v.sizes().end());
      s.slots[input_slots[i]] = v.reshape(one).expand(flat).contiguous();
    }
    else if (same && v.dim() > nt && v.is_contiguous())
      s.slots[input_slots[i]] = v.dim() - nt == 1 ? v : v.view(flat);
    else
    {
      auto full = batch;
      full.insert(full.end(), v.sizes().end() - nt, v.sizes().end());
      s.slots[input_slots[i]] = v.expand(full).contiguous().view(flat);
    }
  }
  for (const auto & [name, value] : overrides)
  {
    bool known = false;
    for (const auto & p : params)
      known = known || p.name == name;
    if (!known)
      throw FatalError("unknown parameter '" + name +
                       "' in param_overrides; promoted parameters: " +
                       [&]
                       {
                         std::string all;
                         for (const auto & p : params)
                           all += (all.empty() ? "" : ", ") + p.name;
                         return all.empty() ? std::string("(none)") : all;
                       }());
  }
  s.params.resize(params.size());
  for (std::size_t i = 0; i < params.size(); ++i)
    s.params[i] = param_for_call(i, overrides, s.nbatch);
  return s;
}

at::Tensor
ModelImpl::param_for_call(std::size_t i, const TensorMap & overrides, int64_t nbatch) const
{
  const auto & p = params[i];
  auto it = overrides.find(p.name);
  const at::Tensor * v = nullptr;
  if (it != overrides.end())
    v = &it->second;
  else
  {
    auto jt = named_parameters.find(p.name);
    if (jt == named_parameters.end() || !jt->second.defined())
      throw FatalError("parameter '" + p.name +
                       "' was removed from named_parameters(); assign a tensor to it instead");
    v = &jt->second;
  }
  if (v->scalar_type() != dtype || !device_ok(device, v->device()))
    throw FatalError("parameter '" + p.name + "' is " + c10::toString(v->scalar_type()) + " on " +
                     v->device().str() + " but the model runs " + c10::toString(dtype) + " on " +
                     device.str());
  const auto nb = static_cast<int64_t>(p.base.size());
  if (v->dim() < nb || v->sizes().slice(v->dim() - nb) != c10::IntArrayRef(p.base))
    throw FatalError("parameter '" + p.name + "': shape " + format_shape(v->sizes()) +
                     " does not end with its base shape " + format_shape(p.base));
  std::vector<int64_t> flat{nbatch};
  flat.insert(flat.end(), p.base.begin(), p.base.end());
  if (v->dim() == nb)
  {
    if (param_cache.size() != params.size())
      param_cache.resize(params.size());
    auto & c = param_cache[i];
    const auto version = v->_version();
    if (!c.source.is_same(*v) || c.version != version || c.nbatch != nbatch)
      c = {*v, version, nbatch, v->unsqueeze(0).expand(flat).contiguous()};
    return c.value;
  }
  const auto lead = v->sizes().slice(0, v->dim() - nb);
  int64_t nl = 1;
  for (auto x : lead)
    nl *= x;
  if (nl == nbatch && v->is_contiguous())
    return v->view(flat);
  if (nl == nbatch)
    return v->reshape(flat).contiguous();
  if (nl == 1)
    return v->reshape(std::vector<int64_t>(flat.begin() + 1, flat.end()))
        .unsqueeze(0)
        .expand(flat)
        .contiguous();
  throw FatalError("parameter '" + p.name + "': batch shape " + format_shape(lead) +
                   " does not match the call's batch of " + std::to_string(nbatch) + " elements");
}

void
ModelImpl::run_forward(const ForwardSegment & seg, CallState & s) const
{
  std::vector<at::Tensor> args;
  args.reserve(seg.inputs.size() + seg.params.size());
  for (int id : seg.inputs)
    args.push_back(s.slots[id]);
  for (int p : seg.params)
    args.push_back(s.params[p]);
  auto out = seg.value->run(std::move(args), seg.outputs.size());
  for (std::size_t k = 0; k < seg.outputs.size(); ++k)
    s.slots[seg.outputs[k]] = std::move(out[k]);
}

void
ModelImpl::run_segments(CallState & s)
{
  for (const auto & seg : segments)
    if (seg.implicit)
      run_implicit(seg.imp, s, /*keep_jacobian=*/false);
    else
      run_forward(seg.fwd, s);
}

TensorMap
ModelImpl::collect_outputs(const CallState & s) const
{
  TensorMap out;
  for (std::size_t k = 0; k < output_slots.size(); ++k)
  {
    const auto t =
        s.slots[output_slots[k]].defined() ? s.rows(s.slots[output_slots[k]]) : at::Tensor();
    if (!t.defined())
      throw FatalError("output '" + output_names[k] + "' was not produced by any segment");
    if (s.batch.size() == 1)
      out.emplace_hint(out.end(), output_names[k], t);
    else
    {
      auto shape = s.batch;
      shape.insert(shape.end(), t.sizes().begin() + 1, t.sizes().end());
      out.emplace(output_names[k], t.view(shape));
    }
  }
  return out;
}

std::string
ModelImpl::label() const
{
  return "compiled model" + (model_name.empty() ? std::string() : " '" + model_name + "'") + " (" +
         root.string() + ")";
}

at::Tensor
ModelImpl::empty_of(const CallState & s, const std::vector<int64_t> & trailing) const
{
  auto shape = s.batch;
  shape.insert(shape.end(), trailing.begin(), trailing.end());
  return at::empty(shape, at::TensorOptions().dtype(dtype).device(device));
}

TensorMap
ModelImpl::empty_outputs(const CallState & s) const
{
  TensorMap out;
  for (std::size_t k = 0; k < output_slots.size(); ++k)
    out.emplace(output_names[k], empty_of(s, vars[output_slots[k]].trailing()));
  return out;
}

TensorMap
ModelImpl::forward(const TensorMap & inputs, const TensorMap & overrides)
{
  log.clear();
  auto s = prepare(inputs, overrides);
  if (s.ncall == 0)
    return empty_outputs(s);
  run_segments(s);
  return collect_outputs(s);
}

void
ModelImpl::set_parameter(const std::string & name, const at::Tensor & value)
{
  for (const auto & p : params)
    if (p.name == name)
    {
      if (!value.defined())
        throw FatalError("set_parameter('" + name + "'): undefined tensor");
      if (value.scalar_type() != dtype || !device_ok(device, value.device()))
        throw FatalError("set_parameter('" + name + "'): value is " +
                         c10::toString(value.scalar_type()) + " on " + value.device().str() +
                         " but the model runs " + c10::toString(dtype) + " on " + device.str());
      const auto nb = static_cast<int64_t>(p.base.size());
      if (value.dim() < nb || value.sizes().slice(value.dim() - nb) != c10::IntArrayRef(p.base))
        throw FatalError("set_parameter('" + name + "'): shape " + format_shape(value.sizes()) +
                         " does not end with its base shape " + format_shape(p.base));
      named_parameters[name] = value;
      return;
    }
  std::string all;
  for (const auto & p : params)
    all += (all.empty() ? "" : ", ") + p.name;
  throw FatalError("set_parameter: '" + name + "' is not a promoted parameter (promoted: " +
                   (all.empty() ? std::string("none; recompile with neml2-compile -p NAME") : all) +
                   ")");
}
} // namespace neml2::aoti
