// The public neml2::aoti::Model: every member runs through guard() (foreign exceptions become
// FatalError) and every call takes the model's mutex (concurrent calls on one Model serialize);
// evaluations run in a CallBufferScope (their buffers are reused when the host opted into the
// buffer cache).
#include "neml2/csrc/aoti/Model.h"

#include <algorithm>

#include "model_impl.h"
#include "neml2/csrc/aoti/allocator.h"
#include "neml2/csrc/aoti/guard.h"

namespace neml2::aoti
{
namespace
{
std::unique_ptr<ModelImpl>
load(const std::filesystem::path & root, c10::Device device, c10::ScalarType dtype)
{
  apply_allocation_opt_ins();
  auto impl =
      guard("aoti::Model", [&] { return std::make_unique<ModelImpl>(root, device, dtype); });
  if (!device.is_cpu()) // row blocks help CPU caches; a GPU wants the whole batch per launch
    impl->config.chunk_rows = 0;
  return impl;
}
} // namespace

Model::Model(const std::filesystem::path & artifact_root, c10::Device device, c10::ScalarType dtype)
  : _impl(load(artifact_root, device, dtype))
{
}

RouteModel::~RouteModel() = default;

Model::~Model() = default;

TensorMap
Model::forward(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard("forward",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 CallBufferScope buffers;
                 return _impl->forward(inputs, param_overrides);
               });
}

JvpResult
Model::jvp(const TensorMap & inputs,
           const TensorMap & tangents,
           const TensorMap & param_overrides) const
{
  return guard("jvp",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 CallBufferScope buffers;
                 return _impl->jvp(inputs, tangents, param_overrides);
               });
}

JacobianResult
Model::jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard("jacobian",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 CallBufferScope buffers;
                 return _impl->jacobian(inputs, param_overrides);
               });
}

JacobianResult
Model::param_jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return guard("param_jacobian",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 CallBufferScope buffers;
                 return _impl->param_jacobian(inputs, param_overrides);
               });
}

TensorMap
Model::param_vjp(const TensorMap & inputs,
                 const TensorMap & cotangents,
                 const TensorMap & param_overrides) const
{
  return guard("param_vjp",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 CallBufferScope buffers;
                 return _impl->param_vjp(inputs, cotangents, param_overrides);
               });
}

const std::vector<std::string> &
Model::input_names() const
{
  return _impl->input_names;
}

const std::vector<std::string> &
Model::output_names() const
{
  return _impl->output_names;
}

const BaseShapes &
Model::input_base_shapes() const
{
  return _impl->input_base;
}

const BaseShapes &
Model::output_base_shapes() const
{
  return _impl->output_base;
}

const BaseShapes &
Model::input_sub_batch_shapes() const
{
  return _impl->input_sub;
}

const BaseShapes &
Model::output_sub_batch_shapes() const
{
  return _impl->output_sub;
}

const std::vector<std::string> &
Model::input_types() const
{
  return _impl->input_types;
}

const std::vector<std::string> &
Model::output_types() const
{
  return _impl->output_types;
}

std::map<std::string, std::vector<int64_t>>
Model::parameter_base_shapes() const
{
  return guard("parameter_base_shapes",
               [&]
               {
                 std::map<std::string, std::vector<int64_t>> out;
                 for (const auto & p : _impl->params)
                   out.emplace(p.name, p.base);
                 return out;
               });
}

const std::vector<std::pair<std::string, std::string>> &
Model::derivatives() const
{
  return _impl->derivatives;
}

const std::vector<std::pair<std::string, std::string>> &
Model::parameter_derivatives() const
{
  return _impl->parameter_derivatives;
}

std::vector<int64_t>
Model::jacobian_block_shape(const std::string & out, const std::string & in) const
{
  const auto & d = _impl->derivatives;
  if (std::find(d.begin(), d.end(), std::make_pair(out, in)) == d.end())
    throw FatalError("jacobian_block_shape: [" + out + ", " + in +
                     "] is not a compiled derivative pair of " + _impl->label());
  return _impl->block_shape(out, in);
}

c10::Device
Model::device() const
{
  return _impl->device;
}

c10::ScalarType
Model::dtype() const
{
  return _impl->dtype;
}

const std::filesystem::path &
Model::artifact_root() const
{
  return _impl->root;
}

TensorMap &
Model::named_parameters()
{
  return _impl->named_parameters;
}

TensorMap
Model::named_parameters() const
{
  return guard("named_parameters",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 return TensorMap(_impl->named_parameters);
               });
}

void
Model::set_parameter(const std::string & name, const at::Tensor & value)
{
  guard("set_parameter",
        [&]
        {
          std::lock_guard<std::mutex> lock(_impl->mutex);
          _impl->set_parameter(name, value);
        });
}

void
Model::set_solver_config(const SolverConfig & config)
{
  guard("set_solver_config",
        [&]
        {
          if (!(config.atol >= 0) || !(config.rtol >= 0) || !(config.substep_del_tol >= 0))
            throw FatalError("set_solver_config: atol, rtol and substep_del_tol must be >= 0");
          if (config.chunk_rows < SolverConfig::auto_chunk_rows)
            throw FatalError("set_solver_config: chunk_rows must be >= 0 (0: no row blocks) or " +
                             std::to_string(SolverConfig::auto_chunk_rows) + " (automatic), got " +
                             std::to_string(config.chunk_rows));
          if (config.miters < 1)
            throw FatalError("set_solver_config: miters must be >= 1, got " +
                             std::to_string(config.miters));
          if (config.ls_type != "BACKTRACKING" && config.ls_type != "STRONG_WOLFE")
            throw FatalError("set_solver_config: ls_type must be BACKTRACKING or STRONG_WOLFE, "
                             "got '" +
                             config.ls_type + "'");
          if (config.ls_max_iters > 1 && !(config.ls_cutback > 1.0))
            throw FatalError("set_solver_config: ls_cutback must be > 1");
          std::lock_guard<std::mutex> lock(_impl->mutex);
          _impl->config = config;
        });
}

const SolverConfig &
Model::solver_config() const
{
  return _impl->config;
}

std::vector<std::string>
Model::solver_log() const
{
  return guard("solver_log",
               [&]
               {
                 std::lock_guard<std::mutex> lock(_impl->mutex);
                 return _impl->log;
               });
}
} // namespace neml2::aoti
