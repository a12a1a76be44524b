// neml2.aoti._aoti.Model: the Python face of neml2::aoti::Model (docs/design/runtime.md,
// "Python face").
//
// Arguments are converted with the GIL held, every C++ call (loading included) runs with the GIL
// released, and results are converted back with the GIL held again: Python threads that each own
// a Model run concurrently. Result dicts follow output_names (then input_names) order, not the
// key order of the C++ maps. Errors: bad Python argument types raise TypeError; everything the
// runtime rejects raises neml2.aoti.FatalError / ConvergenceError (translator in _aoti.cpp).
#include "model_bindings.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/autograd/python_variable.h>

#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/guard.h"
#include "stub_types.h"

namespace py = pybind11;

namespace neml2::aoti::python
{
TensorMap
to_map(const py::handle & obj, const char * what)
{
  TensorMap out;
  if (obj.is_none())
    return out;
  py::dict d;
  if (PyDict_Check(obj.ptr()))
    d = py::reinterpret_borrow<py::dict>(obj);
  else if (py::hasattr(obj, "items") && py::hasattr(obj, "keys"))
    d = py::dict(py::reinterpret_borrow<py::object>(obj));
  else
    throw py::type_error(std::string(what) +
                         " must be a mapping of variable name -> torch.Tensor, got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  PyObject * key = nullptr;
  PyObject * value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(d.ptr(), &pos, &key, &value))
  {
    if (!PyUnicode_Check(key))
      throw py::type_error(std::string(what) + ": key " + std::string(py::repr(key)) +
                           " is not a str (keys are variable names)");
    std::string name = py::handle(key).cast<std::string>();
    if (!THPVariable_Check(value))
      throw py::type_error(std::string(what) + "['" + name + "'] is a " +
                           std::string(py::str(py::type::handle_of(value).attr("__name__"))) +
                           ", expected a torch.Tensor (unwrap typed tensors with .data)");
    out.emplace(std::move(name), THPVariable_Unpack(value));
  }
  return out;
}

std::filesystem::path
artifact_root(const py::object & path)
{
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

c10::ScalarType
to_scalar_type(const py::object & dtype)
{
  py::object dt = dtype;
  if (py::isinstance<py::str>(dtype))
  {
    py::object torch = py::module_::import("torch");
    const auto name = dtype.cast<std::string>();
    if (!py::hasattr(torch, name.c_str()))
      throw py::type_error("dtype '" + name + "' is not a torch dtype (use float64 or float32)");
    dt = torch.attr(name.c_str());
  }
  if (!THPDtype_Check(dt.ptr()))
    throw py::type_error("dtype must be a torch.dtype or its name, got " +
                         std::string(py::repr(dtype)));
  return reinterpret_cast<THPDtype *>(dt.ptr())->scalar_type;
}

namespace
{

/// values as a dict in the given key order (names absent from values are skipped).
TensorDict
ordered(const TensorMap & values, const std::vector<std::string> & order)
{
  TensorDict d;
  for (const auto & name : order)
  {
    auto it = values.find(name);
    if (it != values.end())
      d[py::str(name)] = py::cast(it->second);
  }
  return d;
}

/// J[out][in] as nested dicts ordered by output names, then by the given column names.
TensorBlockDict
ordered_blocks(const VariablePairJacobian & J,
               const std::vector<std::string> & rows,
               const std::vector<std::string> & cols)
{
  TensorBlockDict d;
  for (const auto & out : rows)
  {
    auto it = J.find(out);
    if (it != J.end())
      d[py::str(out)] = ordered(it->second, cols);
  }
  return d;
}

std::vector<std::string>
keys(const std::map<std::string, std::vector<int64_t>> & m)
{
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto & [k, v] : m)
    out.push_back(k);
  return out;
}

c10::Device
parse_device(const py::object & device)
{
  if (device.is_none())
    return c10::Device(c10::kCPU);
  return py::module_::import("torch").attr("device")(device).cast<c10::Device>();
}

c10::ScalarType
parse_dtype(const py::object & dtype)
{
  if (dtype.is_none())
    return c10::kDouble;
  const auto st = to_scalar_type(dtype);
  if (st != c10::kDouble && st != c10::kFloat)
    throw FatalError(std::string("neml2.aoti.Model: dtype must be torch.float64 or torch.float32, "
                                 "got ") +
                     std::string(py::str(py::cast(st))));
  return st;
}

/// The solver settings by name.
using SolverConfigDict =
    py::typing::Dict<py::str, py::typing::Union<py::float_, py::int_, py::str, py::bool_>>;

SolverConfigDict
config_dict(const SolverConfig & c)
{
  SolverConfigDict d;
  d["atol"] = c.atol;
  d["rtol"] = c.rtol;
  d["miters"] = c.miters;
  d["ls_type"] = c.ls_type;
  d["ls_max_iters"] = c.ls_max_iters;
  d["ls_cutback"] = c.ls_cutback;
  d["ls_c"] = c.ls_c;
  d["substep_del_tol"] = c.substep_del_tol;
  d["collect_log"] = c.collect_log;
  d["chunk_rows"] = c.chunk_rows;
  return d;
}

template <typename T>
void
assign(T & slot, const std::optional<T> & value)
{
  if (value)
    slot = *value;
}
} // namespace

void
bind_model(py::module_ & m)
{
  py::class_<Model, std::unique_ptr<Model>> cls(m, "Model", R"doc(
A compiled neml2 model (artifact of neml2-compile) run by libneml2.so.

Model(path, device=None, dtype=None): path is the artifact folder (holding metadata.json and one
<device>/<dtype>/ leaf of .pt2 graphs per compiled target) or its metadata.json. device and dtype
select the leaf (default cpu and float64, never torch's ambient defaults); inputs must already be
on that device and dtype (no silent cast). Inputs are canonical (*batch, *base) tensors keyed by
input_names; batch shapes broadcast, batch-less inputs give batch-less outputs and an empty batch
gives empty outputs.

Promoted parameters (neml2-compile -p NAME) are in named_parameters(): in-place edits of those
tensors are seen by the next call; set_parameter replaces one. Calls release the GIL; one Model
serializes its own calls, so use one Model per thread for parallelism.)doc");

  cls.def(py::init(
              [](const PathArg & path, const DeviceArg & device, const DtypeArg & dtype)
              {
                auto root = artifact_root(path);
                auto dev = parse_device(device);
                auto dt = parse_dtype(dtype);
                py::gil_scoped_release release;
                return guard("neml2.aoti.Model",
                             [&] { return std::make_unique<Model>(root, dev, dt); });
              }),
          py::arg("path"),
          py::arg("device") = py::none(),
          py::arg("dtype") = py::none());

  cls.def(
      "forward",
      [](Model & self,
         const TensorMappingArg & inputs,
         const OptionalTensorMappingArg & param_overrides)
      {
        auto in = to_map(inputs, "forward: inputs");
        auto ov = to_map(param_overrides, "forward: param_overrides");
        TensorMap out;
        {
          py::gil_scoped_release release;
          out = self.forward(in, ov);
        }
        return ordered(out, self.output_names());
      },
      py::arg("inputs"),
      py::arg("param_overrides") = py::none(),
      "Output values {name: (*B, *out_base)} in output_names order. param_overrides replaces "
      "promoted parameters for this call only.");

  cls.def(
      "jvp",
      [](Model & self,
         const TensorMappingArg & inputs,
         const TensorMappingArg & tangents,
         const OptionalTensorMappingArg & param_overrides)
      {
        auto in = to_map(inputs, "jvp: inputs");
        auto tan = to_map(tangents, "jvp: tangents");
        auto ov = to_map(param_overrides, "jvp: param_overrides");
        JvpResult res;
        {
          py::gil_scoped_release release;
          res = self.jvp(in, tan, ov);
        }
        return std::make_pair(ordered(res.first, self.output_names()),
                              ordered(res.second, self.output_names()));
      },
      py::arg("inputs"),
      py::arg("tangents"),
      py::arg("param_overrides") = py::none(),
      "(outputs, {out: sum_in dout/din . tangents[in]}) for the compiled derivative pairs; a "
      "missing tangent counts as zero.");

  cls.def(
      "jacobian",
      [](Model & self,
         const TensorMappingArg & inputs,
         const OptionalTensorMappingArg & param_overrides)
      {
        auto in = to_map(inputs, "jacobian: inputs");
        auto ov = to_map(param_overrides, "jacobian: param_overrides");
        JacobianResult res;
        {
          py::gil_scoped_release release;
          res = self.jacobian(in, ov);
        }
        return std::make_pair(ordered(res.first, self.output_names()),
                              ordered_blocks(res.second, self.output_names(), self.input_names()));
      },
      py::arg("inputs"),
      py::arg("param_overrides") = py::none(),
      "(outputs, J) with J[out][in] of shape (*B, *out_base, *in_base) for the compiled pairs "
      "(a block that does not depend on the batch is a broadcast view of that shape).");

  cls.def(
      "param_jacobian",
      [](Model & self,
         const TensorMappingArg & inputs,
         const OptionalTensorMappingArg & param_overrides)
      {
        auto in = to_map(inputs, "param_jacobian: inputs");
        auto ov = to_map(param_overrides, "param_jacobian: param_overrides");
        JacobianResult res;
        std::map<std::string, std::vector<int64_t>> params;
        {
          py::gil_scoped_release release;
          res = self.param_jacobian(in, ov);
          params = self.parameter_base_shapes();
        }
        return std::make_pair(ordered(res.first, self.output_names()),
                              ordered_blocks(res.second, self.output_names(), keys(params)));
      },
      py::arg("inputs"),
      py::arg("param_overrides") = py::none(),
      "(outputs, P) with P[out][param] of shape (*B, *out_base, *param_base) for the compiled "
      "parameter pairs (NEML2 v3's pair).");

  cls.def(
      "param_vjp",
      [](Model & self,
         const TensorMappingArg & inputs,
         const TensorMappingArg & cotangents,
         const OptionalTensorMappingArg & param_overrides)
      {
        auto in = to_map(inputs, "param_vjp: inputs");
        auto cot = to_map(cotangents, "param_vjp: cotangents");
        auto ov = to_map(param_overrides, "param_vjp: param_overrides");
        TensorMap g;
        {
          py::gil_scoped_release release;
          g = self.param_vjp(in, cot, ov);
        }
        TensorDict d;
        for (const auto & [name, value] : g)
          d[py::str(name)] = py::cast(value);
        return d;
      },
      py::arg("inputs"),
      py::arg("cotangents"),
      py::arg("param_overrides") = py::none(),
      "Gradient of sum_out <cotangents[out], out> per compiled parameter: summed over the batch "
      "for a global parameter, per element for a batched one.");

  cls.def(
      "named_parameters",
      [](Model & self)
      {
        TensorDict d;
        for (const auto & [name, value] : self.named_parameters())
          d[py::str(name)] = py::cast(value);
        return d;
      },
      "Promoted parameters {name: tensor}; the tensors share storage with the runtime, so "
      "in-place edits are seen by the next call (assigning a dict entry is not: use "
      "set_parameter).");

  cls.def(
      "set_parameter",
      [](Model & self, const std::string & name, const at::Tensor & value)
      {
        py::gil_scoped_release release;
        self.set_parameter(name, value);
      },
      py::arg("name"),
      py::arg("value"),
      "Replace a promoted parameter (a (B, *param_base) value makes it batched).");

  cls.def(
      "set_solver_config",
      [](Model & self,
         std::optional<double> atol,
         std::optional<double> rtol,
         std::optional<int64_t> miters,
         std::optional<std::string> ls_type,
         std::optional<int64_t> ls_max_iters,
         std::optional<double> ls_cutback,
         std::optional<double> ls_c,
         std::optional<double> substep_del_tol,
         std::optional<bool> collect_log,
         std::optional<int64_t> chunk_rows)
      {
        SolverConfig c = self.solver_config();
        assign(c.atol, atol);
        assign(c.rtol, rtol);
        assign(c.miters, miters);
        assign(c.ls_type, ls_type);
        assign(c.ls_max_iters, ls_max_iters);
        assign(c.ls_cutback, ls_cutback);
        assign(c.ls_c, ls_c);
        assign(c.substep_del_tol, substep_del_tol);
        assign(c.collect_log, collect_log);
        assign(c.chunk_rows, chunk_rows);
        py::gil_scoped_release release;
        self.set_solver_config(c);
      },
      py::arg("atol") = py::none(),
      py::arg("rtol") = py::none(),
      py::arg("miters") = py::none(),
      py::arg("ls_type") = py::none(),
      py::arg("ls_max_iters") = py::none(),
      py::arg("ls_cutback") = py::none(),
      py::arg("ls_c") = py::none(),
      py::arg("substep_del_tol") = py::none(),
      py::arg("collect_log") = py::none(),
      py::arg("chunk_rows") = py::none(),
      "Newton settings of the implicit segments from the next call on; omitted settings keep "
      "their current value.");

  cls.def_property_readonly(
      "solver_config",
      [](const Model & self) { return config_dict(self.solver_config()); },
      "Current Newton settings as a dict.");
  cls.def("solver_log",
          &Model::solver_log,
          "Newton log lines of the last call (kept when collect_log is set).");

  cls.def_property_readonly(
      "input_names", &Model::input_names, "Master input names in graph-call order.");
  cls.def_property_readonly("output_names", &Model::output_names, "Master output names.");
  cls.def_property_readonly("input_base_shapes",
                            &Model::input_base_shapes,
                            "Base shape of each input, in input_names order (Scalar [], SR2 [6]).");
  cls.def_property_readonly("output_base_shapes",
                            &Model::output_base_shapes,
                            "Base shape of each output, in output_names order.");
  cls.def_property_readonly("input_types",
                            &Model::input_types,
                            "Tensor type name of each input (Scalar, SR2, ...; '' if unrecorded).");
  cls.def_property_readonly("output_types", &Model::output_types, "Tensor type of each output.");
  cls.def_property_readonly("parameter_base_shapes",
                            &Model::parameter_base_shapes,
                            "Natural base shape of each promoted parameter.");
  cls.def_property_readonly(
      "derivatives", &Model::derivatives, "Compiled (output, input) derivative pairs.");
  cls.def_property_readonly("parameter_derivatives",
                            &Model::parameter_derivatives,
                            "Compiled (output, parameter) derivative pairs.");
  cls.def("jacobian_block_shape",
          &Model::jacobian_block_shape,
          py::arg("output"),
          py::arg("input"),
          "Shape of jacobian()'s J[out][in] behind the batch axes: (*out_sub, *out_base, "
          "*in_sub, *in_base), or (*sub, *out_base, *in_base) for a site-diagonal pair.");
  cls.def_property_readonly("device", &Model::device, "Device of the loaded leaf.");
  cls.def_property_readonly("dtype", &Model::dtype, "Floating dtype of the loaded leaf.");
  cls.def_property_readonly(
      "artifact_root", &Model::artifact_root, "Folder holding metadata.json.");
  cls.def("__repr__",
          [](const Model & self)
          {
            return "<neml2.aoti.Model '" + self.artifact_root().string() + "' on " +
                   self.device().str() + "/" + std::string(c10::toString(self.dtype())) + ">";
          });
}
} // namespace neml2::aoti::python
