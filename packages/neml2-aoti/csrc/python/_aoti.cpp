// pybind11 module neml2.aoti._aoti: the Python face of libneml2.so.
//
// Built against torch's bundled pybind11 and linked to libtorch_python, so at::Tensor,
// at::Device and at::ScalarType cross the boundary through torch's own casters.
//
// Exception translation: neml2::aoti::ConvergenceError (and a recoverable AggregateError) raise
// the single Python ConvergenceError class chosen by neml2.aoti._errors; every other neml2
// exception raises neml2.aoti.FatalError. Both are RuntimeError subclasses.
#include <c10/core/CPUAllocator.h>
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"
#include "neml2/csrc/aoti/allocator.h"
#include "neml2/csrc/aoti/env.h"
#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/aoti/metadata.h"

#include "model_bindings.h"
#include "stub_types.h"

namespace py = pybind11;
using namespace neml2::aoti;
using neml2::aoti::python::DeviceArg;
using neml2::aoti::python::DtypeArg;
using neml2::aoti::python::PathArg;
using neml2::aoti::python::TensorMappingArg;

namespace neml2::aoti::python
{
void bind_linalg(py::module_ & m); // linalg_bindings.cpp
}

namespace
{
// Owned references kept for the life of the process (the module is never unloaded).
PyObject * convergence_error_type = nullptr;
PyObject * fatal_error_type = nullptr;

void
raise_convergence(const char * message, const ConvergenceError * source)
{
  py::object exc = py::reinterpret_borrow<py::object>(convergence_error_type)(message);
  if (source && source->has_failure_data())
  {
    exc.attr("converged_mask") = py::cast(source->converged_mask());
    exc.attr("unknowns") = py::cast(source->unknowns());
  }
  PyErr_SetObject(convergence_error_type, exc.ptr());
}

void
translate(std::exception_ptr p)
{
  try
  {
    if (p)
      std::rethrow_exception(p);
  }
  catch (const ConvergenceError & e)
  {
    raise_convergence(e.what(), &e);
  }
  catch (const Exception & e)
  {
    if (e.recoverable())
      raise_convergence(e.what(), nullptr);
    else
      PyErr_SetString(fatal_error_type, e.what());
  }
}

[[noreturn]] void
throw_for_test(const std::string & kind,
               const std::string & message,
               const std::optional<at::Tensor> & converged_mask,
               const std::optional<at::Tensor> & unknowns)
{
  if (kind == "fatal")
    throw FatalError(message);
  if (kind == "convergence" && converged_mask && unknowns)
    throw ConvergenceError(message, *converged_mask, *unknowns);
  if (kind == "convergence")
    throw ConvergenceError(message);
  if (kind == "aggregate")
    throw AggregateError({std::make_exception_ptr(ConvergenceError(message)),
                          std::make_exception_ptr(ConvergenceError(message))});
  if (kind == "foreign")
    guard("_throw", [&]() -> void { throw std::out_of_range(message); });
  throw FatalError("_throw: unknown kind '" + kind +
                   "' (expected fatal, convergence, aggregate or foreign)");
}
} // namespace

PYBIND11_MODULE(_aoti, m)
{
  m.doc() = "Python bindings of libneml2.so (neml2 AOTI runtime)";
  py::module_::import("torch");
  auto errors = py::module_::import("neml2.aoti._errors");
  convergence_error_type = py::object(errors.attr("ConvergenceError")).release().ptr();
  fatal_error_type = py::object(errors.attr("FatalError")).release().ptr();
  m.attr("ConvergenceError") = py::handle(convergence_error_type);
  m.attr("FatalError") = py::handle(fatal_error_type);
  py::register_exception_translator(&translate);
  neml2::aoti::python::bind_linalg(m);
  neml2::aoti::python::bind_model(m);

  m.def(
      "canonicalize_inputs",
      [](const TensorMappingArg & inputs,
         const std::vector<std::string> & names,
         const std::vector<std::vector<int64_t>> & base_shapes,
         const at::Device & device,
         at::ScalarType dtype,
         const std::optional<std::vector<std::vector<int64_t>>> & sub_batch_shapes,
         bool required,
         const std::string & what)
      {
        CanonicalOptions options;
        options.sub_batch_shapes = sub_batch_shapes.value_or(std::vector<std::vector<int64_t>>{});
        options.required = required;
        options.what = what;
        const auto map = neml2::aoti::python::to_map(inputs, (what + "s").c_str());
        auto result = guard(
            "canonicalize_inputs",
            [&] { return canonicalize_inputs(map, names, base_shapes, device, dtype, options); });
        return py::make_tuple(result.values, result.batch_shape);
      },
      py::arg("inputs"),
      py::arg("names"),
      py::arg("base_shapes"),
      py::arg("device"),
      py::arg("dtype"),
      py::arg("sub_batch_shapes") = py::none(),
      py::arg("required") = true,
      py::arg("what") = "input",
      "Check and broadcast inputs to the canonical (*batch, *sub_batch, *base) boundary; returns "
      "(tensors, batch_shape). sub_batch_shapes: per name, the declared sub-batch shape (None: "
      "none); required=False skips absent names (tangents); what names the tensors in messages.");
  m.def(
      "broadcast_batch_shapes",
      [](const std::vector<std::vector<int64_t>> & shapes)
      { return guard("broadcast_batch_shapes", [&] { return broadcast_batch_shapes(shapes); }); },
      py::arg("shapes"),
      "The common batch shape of the given batch shapes (canonicalize_inputs' broadcasting "
      "rule); FatalError when there is none.");
  m.attr("FORMAT") = kArtifactFormat;
  m.attr("SCHEMA_VERSION") = kSchemaVersion;
  m.attr("OLDEST_SCHEMA_VERSION") = kOldestSchemaVersion;
  m.def(
      "read_metadata",
      [](const PathArg & path, const DeviceArg & device, const DtypeArg & dtype)
      {
        const auto root = neml2::aoti::python::artifact_root(path);
        std::optional<c10::Device> dev;
        if (!device.is_none())
          dev = py::module_::import("torch").attr("device")(device).cast<c10::Device>();
        std::optional<c10::ScalarType> dt;
        if (!dtype.is_none())
          dt = neml2::aoti::python::to_scalar_type(dtype);
        py::gil_scoped_release release;
        return guard("read_metadata", [&] { return read_artifact_metadata(root, dev, dt); });
      },
      py::arg("path"),
      py::arg("device") = py::none(),
      py::arg("dtype") = py::none(),
      "The text of an artifact's metadata.json (path: the folder or the file) once the loader's "
      "checks pass: folder and file present, JSON, format, schema_version, torch version and "
      "C++ ABI; with a device or a dtype (the other defaults to cpu / float64) also that leaf, "
      "its CPU features and the SHA-1 of every graph file it records. FatalError otherwise.");
  m.def(
      "env_truthy",
      [](const std::optional<std::string> & value)
      { return env_truthy(value ? value->c_str() : nullptr); },
      py::arg("value"),
      "Whether an environment value counts as true (not unset, '', 0, false, no, off).");
  m.def("capture_solve_failure",
        &capture_solve_failure,
        "Whether NEML2_CAPTURE_SOLVE_FAILURE is truthy.");
  m.def("keep_large_allocations",
        &keep_large_allocations,
        "Opt in to the process's large-allocation policy (glibc mmap/trim thresholds raised to "
        "1 GiB; applied once); whether it is active.");
  m.def("cache_call_buffers",
        &cache_call_buffers,
        "Opt in to the buffer cache of runtime calls (a caching CPU allocator in front of torch's; "
        "installed once); whether it is active.");
  m.def(
      "_cpu_allocator_address",
      [] { return reinterpret_cast<std::uintptr_t>(c10::GetCPUAllocator()); },
      "The address of c10's current CPU allocator (tests: whether it was replaced).");
  m.def("buffer_cache_bytes",
        &buffer_cache_bytes,
        "Bytes of freed buffers the buffer cache holds for reuse.");
  m.def("_throw",
        &throw_for_test,
        py::arg("kind"),
        py::arg("message"),
        py::arg("converged_mask") = py::none(),
        py::arg("unknowns") = py::none(),
        "Throw a C++ exception of the given kind to exercise the translator.");
}
