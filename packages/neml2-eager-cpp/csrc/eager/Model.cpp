// neml2::eager::Model: every operation is one call into neml2.eager._bridge.EagerModel under the
// GIL; tensors cross through torch's pybind11 casters (no copies).
#include "neml2/csrc/eager/Model.h"

#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <ATen/ops/empty.h>

#include <mutex>
#include <tuple>
#include <utility>

#include "neml2/csrc/eager/load_model.h"
#include "with_python.h"

namespace py = pybind11;

namespace neml2::eager
{
namespace
{
/// (name, type, base shape, sub-batch shape) of one boundary variable, as the bridge lists them.
using VarRecord = std::tuple<std::string, std::string, std::vector<int64_t>, std::vector<int64_t>>;

struct Boundary
{
  std::vector<std::string> names, types;
  BaseShapes base_shapes, sub_batch_shapes;

  explicit Boundary(const std::vector<VarRecord> & records)
  {
    for (const auto & [name, type, base, sub] : records)
    {
      names.push_back(name);
      types.push_back(type);
      base_shapes.push_back(base);
      sub_batch_shapes.push_back(sub);
    }
  }
};

std::string
op_name(const char * op)
{
  return std::string("neml2::eager::Model::") + op;
}
} // namespace

class ModelImpl
{
public:
  ModelImpl(const std::filesystem::path & input_file,
            const std::string & model_name,
            const LoadOptions & o)
    : bridge(py::module_::import("neml2.eager._bridge")
                 .attr("EagerModel")(
                     input_file.string(),
                     model_name,
                     o.device ? py::object(py::str(o.device->str())) : py::none(),
                     py::cast(at::empty({0}, at::TensorOptions().dtype(o.dtype))).attr("dtype"),
                     o.overrides,
                     o.load)),
      inputs(bridge.attr("input_variables")().cast<std::vector<VarRecord>>()),
      outputs(bridge.attr("output_variables")().cast<std::vector<VarRecord>>()),
      options(bridge.attr("options")().cast<at::Tensor>().options())
  {
  }

  ~ModelImpl()
  {
    // The Python object must die under the GIL; after a Python host finalized, leak it instead.
    if (!Py_IsInitialized())
    {
      bridge.release();
      return;
    }
    py::gil_scoped_acquire gil;
    bridge = py::object();
  }

  ModelImpl(const ModelImpl &) = delete;
  ModelImpl & operator=(const ModelImpl &) = delete;

  /// `bridge.<method>(args...)` cast to T, with the GIL held and errors normalized.
  template <typename T, typename... Args>
  T call(const char * method, const Args &... args)
  {
    // The Python object is used under the GIL and `mutex` only, so a const Model may call it.
    return detail::with_python(
        op_name(method), [&] { return bridge.attr(method)(args...).template cast<T>(); }, &mutex);
  }

  /// `bridge.<method>(args...)` with `overrides` set for the call (EagerModel.with_overrides
  /// restores them); the plain call when there are none.
  template <typename T, typename... Args>
  T call_with(const char * method, const TensorMap & overrides, const Args &... args)
  {
    if (overrides.empty())
      return call<T>(method, args...);
    return detail::with_python(
        op_name(method),
        [&]
        { return bridge.attr("with_overrides")(method, overrides, args...).template cast<T>(); },
        &mutex);
  }

  /// Serializes the calls on this model (see detail::with_python).
  std::mutex mutex;
  py::object bridge;
  const Boundary inputs;
  const Boundary outputs;
  const at::TensorOptions options;
};

Model::Model(const std::filesystem::path & input_file,
             const std::string & model_name,
             std::optional<c10::Device> device_override,
             const std::vector<std::string> & load)
  : Model(input_file, model_name, LoadOptions{device_override, c10::kDouble, {}, load}, Tag{})
{
}

Model::Model(const std::filesystem::path & input_file,
             const std::string & model_name,
             const LoadOptions & options,
             Tag)
  : _impl(detail::with_python(
        op_name("load_model"),
        [&] { return std::make_unique<ModelImpl>(input_file, model_name, options); }))
{
}

Model::~Model() = default;

TensorMap
Model::forward(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return _impl->call_with<TensorMap>("forward", param_overrides, inputs);
}

TensorMap
Model::value(const TensorMap & inputs) const
{
  return _impl->call<TensorMap>("value", inputs);
}

JvpResult
Model::jvp(const TensorMap & inputs,
           const TensorMap & tangents,
           const TensorMap & param_overrides) const
{
  return _impl->call_with<JvpResult>("jvp", param_overrides, inputs, tangents);
}

JacobianResult
Model::jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return _impl->call_with<JacobianResult>("jacobian", param_overrides, inputs);
}

JacobianResult
Model::param_jacobian(const TensorMap & inputs, const TensorMap & param_overrides) const
{
  return _impl->call_with<JacobianResult>("param_jacobian", param_overrides, inputs);
}

TensorMap
Model::param_vjp(const TensorMap & inputs,
                 const TensorMap & cotangents,
                 const TensorMap & param_overrides) const
{
  return _impl->call_with<TensorMap>("param_vjp", param_overrides, inputs, cotangents);
}

const std::vector<std::string> &
Model::input_names() const
{
  return _impl->inputs.names;
}

const std::vector<std::string> &
Model::output_names() const
{
  return _impl->outputs.names;
}

const BaseShapes &
Model::input_base_shapes() const
{
  return _impl->inputs.base_shapes;
}

const BaseShapes &
Model::output_base_shapes() const
{
  return _impl->outputs.base_shapes;
}

const std::vector<std::string> &
Model::input_types() const
{
  return _impl->inputs.types;
}

const std::vector<std::string> &
Model::output_types() const
{
  return _impl->outputs.types;
}

const BaseShapes &
Model::input_sub_batch_shapes() const
{
  return _impl->inputs.sub_batch_shapes;
}

const BaseShapes &
Model::output_sub_batch_shapes() const
{
  return _impl->outputs.sub_batch_shapes;
}

std::map<std::string, std::vector<int64_t>>
Model::parameter_base_shapes() const
{
  return _impl->call<std::map<std::string, std::vector<int64_t>>>("parameter_base_shapes");
}

std::string
Model::summary() const
{
  return _impl->call<std::string>("summary");
}

c10::Device
Model::device() const
{
  return _impl->options.device();
}

c10::ScalarType
Model::dtype() const
{
  return c10::typeMetaToScalarType(_impl->options.dtype());
}

TensorMap
Model::named_parameters() const
{
  return _impl->call<TensorMap>("named_parameters");
}

void
Model::set_parameter(const std::string & name, const at::Tensor & value)
{
  detail::with_python(
      op_name("set_parameter"),
      [&] { _impl->bridge.attr("set_parameter")(name, value); },
      &_impl->mutex);
}

Model
load_model(const std::filesystem::path & input_file,
           const std::string & model_name,
           const std::vector<std::string> & load)
{
  return Model(input_file, model_name, std::nullopt, load);
}
} // namespace neml2::eager
