// DispatchedModel: chunked evaluation of one artifact over a WorkScheduler's devices.
#include "neml2/csrc/dispatchers/DispatchedModel.h"

#include <mutex>
#include <set>
#include <utility>

#include "chunking.h"
#include "neml2/csrc/aoti/canonical.h"
#include "neml2/csrc/aoti/guard.h"

namespace neml2::aoti
{
using chunking::BaseNdims;
using chunking::Batch;

/// What one public call needs for chunking.
struct DispatchedModel::Call
{
  Batch batch;
  c10::Device result_device = c10::Device(c10::kCPU);
  const TensorMap * inputs = nullptr;
  BaseNdims in_base, out_base, param_base;
  /// Tangents (keyed by input) or cotangents (keyed by output), cut like the inputs.
  const TensorMap * extra = nullptr;
  const BaseNdims * extra_base = nullptr;
  /// Parameters passed per chunk: the user's overrides plus the batched master parameters.
  TensorMap overrides;
  std::set<std::string> batched_params;
  /// One chunk covering the batch on the inputs' device: call the primary Model directly.
  bool direct = false;
};

DispatchedModel::DispatchedModel(const std::filesystem::path & artifact_root,
                                 std::shared_ptr<WorkScheduler> scheduler,
                                 c10::ScalarType dtype)
  : _scheduler(std::move(scheduler))
{
  guard("DispatchedModel",
        [&]
        {
          if (!_scheduler)
            throw FatalError("DispatchedModel: the scheduler is null");
          for (const auto & device : _scheduler->devices())
            _models.push_back(std::make_unique<Model>(artifact_root, device, dtype));
          if (_models.empty())
            throw FatalError("DispatchedModel: the scheduler has no device");
        });
}

DispatchedModel::DispatchedModel(std::unique_ptr<Model> model,
                                 std::shared_ptr<WorkScheduler> scheduler)
  : _scheduler(std::move(scheduler))
{
  if (!model)
    throw FatalError("DispatchedModel: the model is null");
  if (!_scheduler)
    throw FatalError("DispatchedModel: the scheduler is null");
  if (!_scheduler->synchronous() || _scheduler->devices().size() != 1)
    throw FatalError("DispatchedModel: wrapping a loaded Model needs a synchronous single-device "
                     "scheduler");
  if (_scheduler->devices().front().type() != model->device().type())
    throw FatalError("DispatchedModel: the scheduler device " +
                     _scheduler->devices().front().str() + " does not match the model device " +
                     model->device().str());
  _models.push_back(std::move(model));
}

DispatchedModel::~DispatchedModel() = default;
DispatchedModel::DispatchedModel(DispatchedModel &&) noexcept = default;
DispatchedModel & DispatchedModel::operator=(DispatchedModel &&) noexcept = default;

void
DispatchedModel::sync_parameters() const
{
  std::lock_guard<std::mutex> lock(*_sync);
  if (!_dirty)
    return;
  const auto & master = _models.front()->named_parameters();
  for (std::size_t i = 1; i < _models.size(); ++i)
  {
    auto & copy = _models[i]->named_parameters();
    for (const auto & [name, value] : master)
      copy[name] = value.to(_models[i]->device());
  }
  _dirty = false;
}

DispatchedModel::Call
DispatchedModel::prepare(const char * op,
                         const TensorMap & inputs,
                         const TensorMap & param_overrides,
                         const TensorMap * per_input,
                         const TensorMap * per_output) const
{
  auto & primary = *_models.front();
  if (!inputs.empty())
  {
    // The caller's whole batch meets the canonical boundary before it is cut, so a malformed
    // input is reported at the caller's shapes, never at a chunk's. Chunks may run on other
    // devices: here the inputs need only share one.
    auto device = primary.device();
    for (const auto & [name, value] : inputs)
      if (value.defined())
      {
        device = value.device();
        break;
      }
    CanonicalOptions check;
    check.sub_batch_shapes = primary.input_sub_batch_shapes();
    check.expand = false;
    canonicalize_inputs(
        inputs, primary.input_names(), primary.input_base_shapes(), device, primary.dtype(), check);
  }
  Call call;
  call.inputs = &inputs;
  // batch axes are counted in front of (*sub_batch, *base): a sub-batch axis is never cut
  call.in_base = chunking::trailing_ndims(
      primary.input_names(), primary.input_base_shapes(), primary.input_sub_batch_shapes());
  call.out_base = chunking::trailing_ndims(
      primary.output_names(), primary.output_base_shapes(), primary.output_sub_batch_shapes());
  call.param_base = chunking::base_ndims(primary.parameter_base_shapes());
  call.batch = chunking::find_batch(inputs, call.in_base);
  if (per_input)
    call.extra = per_input, call.extra_base = &call.in_base;
  if (per_output)
    call.extra = per_output, call.extra_base = &call.out_base;

  bool found = false;
  for (const auto & name : primary.input_names())
    if (auto it = inputs.find(name); it != inputs.end() && it->second.defined())
    {
      call.result_device = it->second.device();
      found = true;
      break;
    }
  if (!found && !inputs.empty() && inputs.begin()->second.defined())
    call.result_device = inputs.begin()->second.device();
  if (!found && inputs.empty())
    throw FatalError(std::string(op) + ": no inputs given");

  const auto * sync = dynamic_cast<const SyncScheduler *>(_scheduler.get());
  call.direct = sync && _models.size() == 1 &&
                (sync->batch_size() == 0 || sync->batch_size() >= call.batch.size) &&
                primary.device() == call.result_device;
  if (call.direct)
  {
    call.overrides = param_overrides;
    return call;
  }
  sync_parameters();
  for (const auto & [name, value] : param_overrides)
    call.overrides.emplace(name, value);
  for (const auto & [name, value] : primary.named_parameters())
    if (!call.overrides.count(name) && call.param_base.count(name) &&
        chunking::is_cut(value, call.param_base.at(name), call.batch, false))
      call.overrides.emplace(name, value);
  for (const auto & [name, value] : call.overrides)
    if (call.param_base.count(name) &&
        chunking::is_cut(value, call.param_base.at(name), call.batch, false))
      call.batched_params.insert(name);
  return call;
}

template <typename R, typename F>
std::vector<R>
DispatchedModel::dispatch(const Call & call, F && run) const
{
  std::mutex mutex;
  std::map<int64_t, R> results;
  _scheduler->run(
      std::max<int64_t>(call.batch.size, 1),
      [&](const WorkChunk & chunk)
      {
        auto & model = *_models.at(chunk.device);
        const auto device = model.device();
        const auto in = chunking::slice(
            *call.inputs, call.in_base, call.batch, true, chunk.begin, chunk.size, device);
        const auto ov = chunking::slice(
            call.overrides, call.param_base, call.batch, false, chunk.begin, chunk.size, device);
        TensorMap extra;
        if (call.extra)
          extra = chunking::slice(
              *call.extra, *call.extra_base, call.batch, true, chunk.begin, chunk.size, device);
        R result = run(model, in, ov, extra);
        std::lock_guard<std::mutex> lock(mutex);
        results.emplace(chunk.begin, std::move(result));
      });
  std::vector<R> ordered;
  ordered.reserve(results.size());
  for (auto & [begin, result] : results)
    ordered.push_back(std::move(result));
  return ordered;
}

TensorMap
DispatchedModel::forward(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard("DispatchedModel::forward",
               [&]
               {
                 const auto call = prepare("DispatchedModel::forward", inputs, param_overrides);
                 if (call.direct)
                   return _models.front()->forward(inputs, call.overrides);
                 auto chunks = dispatch<TensorMap>(
                     call,
                     [](Model & m, const TensorMap & in, const TensorMap & ov, const TensorMap &)
                     { return m.forward(in, ov); });
                 return chunking::concat(chunks, call.result_device);
               });
}

JvpResult
DispatchedModel::jvp(const TensorMap & inputs,
                     const TensorMap & tangents,
                     const TensorMap & param_overrides) const
{
  return guard("DispatchedModel::jvp",
               [&]
               {
                 const auto call =
                     prepare("DispatchedModel::jvp", inputs, param_overrides, &tangents);
                 if (call.direct)
                   return _models.front()->jvp(inputs, tangents, call.overrides);
                 auto chunks = dispatch<JvpResult>(
                     call,
                     [](Model & m, const TensorMap & in, const TensorMap & ov, const TensorMap & t)
                     { return m.jvp(in, t, ov); });
                 std::vector<TensorMap> values, directional;
                 for (auto & [v, d] : chunks)
                   values.push_back(std::move(v)), directional.push_back(std::move(d));
                 return JvpResult{chunking::concat(values, call.result_device),
                                  chunking::concat(directional, call.result_device)};
               });
}

JacobianResult
DispatchedModel::jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard("DispatchedModel::jacobian",
               [&]
               {
                 const auto call = prepare("DispatchedModel::jacobian", inputs, param_overrides);
                 if (call.direct)
                   return _models.front()->jacobian(inputs, call.overrides);
                 auto chunks = dispatch<JacobianResult>(
                     call,
                     [](Model & m, const TensorMap & in, const TensorMap & ov, const TensorMap &)
                     { return m.jacobian(in, ov); });
                 std::vector<TensorMap> values;
                 std::vector<VariablePairJacobian> blocks;
                 for (auto & [v, j] : chunks)
                   values.push_back(std::move(v)), blocks.push_back(std::move(j));
                 // a site-diagonal pair's block has fewer axes than the full per-site matrix
                 auto ndims = chunking::block_ndims(call.out_base, call.in_base);
                 const auto & primary = *_models.front();
                 for (const auto & [o, i] : primary.derivatives())
                   ndims[o][i] = static_cast<int64_t>(primary.jacobian_block_shape(o, i).size());
                 return JacobianResult{chunking::concat(values, call.result_device),
                                       chunking::concat_blocks(blocks, ndims, call.result_device)};
               });
}

JacobianResult
DispatchedModel::param_jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard(
      "DispatchedModel::param_jacobian",
      [&]
      {
        const auto call = prepare("DispatchedModel::param_jacobian", inputs, param_overrides);
        if (call.direct)
          return _models.front()->param_jacobian(inputs, call.overrides);
        auto chunks = dispatch<JacobianResult>(
            call,
            [](Model & m, const TensorMap & in, const TensorMap & ov, const TensorMap &)
            { return m.param_jacobian(in, ov); });
        std::vector<TensorMap> values;
        std::vector<VariablePairJacobian> blocks;
        for (auto & [v, j] : chunks)
          values.push_back(std::move(v)), blocks.push_back(std::move(j));
        return JacobianResult{
            chunking::concat(values, call.result_device),
            chunking::concat_blocks(
                blocks, chunking::block_ndims(call.out_base, call.param_base), call.result_device)};
      });
}

TensorMap
DispatchedModel::param_vjp(const TensorMap & inputs,
                           const TensorMap & cotangents,
                           const TensorMap & param_overrides) const
{
  return guard("DispatchedModel::param_vjp",
               [&]
               {
                 const auto call = prepare(
                     "DispatchedModel::param_vjp", inputs, param_overrides, nullptr, &cotangents);
                 if (call.direct)
                   return _models.front()->param_vjp(inputs, cotangents, call.overrides);
                 auto chunks = dispatch<TensorMap>(
                     call,
                     [](Model & m, const TensorMap & in, const TensorMap & ov, const TensorMap & c)
                     { return m.param_vjp(in, c, ov); });
                 return chunking::reduce_adjoints(chunks, call.batched_params, call.result_device);
               });
}

const std::vector<std::string> &
DispatchedModel::input_names() const
{
  return _models.front()->input_names();
}

const std::vector<std::string> &
DispatchedModel::output_names() const
{
  return _models.front()->output_names();
}

const BaseShapes &
DispatchedModel::input_base_shapes() const
{
  return _models.front()->input_base_shapes();
}

const BaseShapes &
DispatchedModel::output_base_shapes() const
{
  return _models.front()->output_base_shapes();
}

const BaseShapes &
DispatchedModel::input_sub_batch_shapes() const
{
  return _models.front()->input_sub_batch_shapes();
}

const BaseShapes &
DispatchedModel::output_sub_batch_shapes() const
{
  return _models.front()->output_sub_batch_shapes();
}

const std::vector<std::string> &
DispatchedModel::input_types() const
{
  return _models.front()->input_types();
}

const std::vector<std::string> &
DispatchedModel::output_types() const
{
  return _models.front()->output_types();
}

std::map<std::string, std::vector<int64_t>>
DispatchedModel::parameter_base_shapes() const
{
  return _models.front()->parameter_base_shapes();
}

const std::vector<std::pair<std::string, std::string>> &
DispatchedModel::derivatives() const
{
  return _models.front()->derivatives();
}

const std::vector<std::pair<std::string, std::string>> &
DispatchedModel::parameter_derivatives() const
{
  return _models.front()->parameter_derivatives();
}

std::vector<int64_t>
DispatchedModel::jacobian_block_shape(const std::string & out, const std::string & in) const
{
  return _models.front()->jacobian_block_shape(out, in);
}

c10::Device
DispatchedModel::device() const
{
  return _models.front()->device();
}

c10::ScalarType
DispatchedModel::dtype() const
{
  return _models.front()->dtype();
}

TensorMap &
DispatchedModel::named_parameters()
{
  std::lock_guard<std::mutex> lock(*_sync);
  _dirty = true;
  return _models.front()->named_parameters();
}

TensorMap
DispatchedModel::named_parameters() const
{
  return std::as_const(*_models.front()).named_parameters();
}

void
DispatchedModel::set_parameter(const std::string & name, const at::Tensor & value)
{
  _models.front()->set_parameter(name, value);
  std::lock_guard<std::mutex> lock(*_sync);
  _dirty = true;
}

void
DispatchedModel::set_solver_config(const SolverConfig & config)
{
  for (auto & model : _models)
    model->set_solver_config(config);
}

const SolverConfig &
DispatchedModel::solver_config() const
{
  return _models.front()->solver_config();
}

const std::shared_ptr<WorkScheduler> &
DispatchedModel::scheduler() const
{
  return _scheduler;
}

Model &
DispatchedModel::model(std::size_t i)
{
  if (i >= _models.size())
    throw FatalError("DispatchedModel::model: device index " + std::to_string(i) +
                     " is out of range (" + std::to_string(_models.size()) + " devices)");
  return *_models[i];
}
} // namespace neml2::aoti
