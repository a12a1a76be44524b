#include "neml2/csrc/eager/python.h"

#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <mutex>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/guard.h"
#include "with_python.h"

namespace py = pybind11;

namespace neml2::eager
{
namespace
{
std::mutex interpreter_mutex;
bool started = false;

void
start_interpreter()
{
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  if (const char * venv = std::getenv("VIRTUAL_ENV"); venv && *venv)
  {
    const std::string python = std::string(venv) + "/bin/python";
    PyConfig_SetBytesString(&config, &config.program_name, python.c_str());
  }
  py::initialize_interpreter(&config, 0, nullptr, false);
  py::module_::import("sys").attr("stdout").attr("reconfigure")(py::arg("line_buffering") = true);
  py::module_::import("sys").attr("stderr").attr("reconfigure")(py::arg("line_buffering") = true);
  // Hand the GIL back for good: every call re-acquires it with gil_scoped_acquire.
  PyEval_SaveThread();
}

/// The one Python ConvergenceError class: neml2.aoti's, which is neml2.solvers' whenever
/// neml2-models is installed (neml2.solvers' directly if neml2.aoti cannot be imported), or None.
py::object
convergence_error_class()
{
  for (const char * module : {"neml2.aoti", "neml2.solvers"})
    try
    {
      return py::module_::import(module).attr("ConvergenceError");
    }
    catch (py::error_already_set &)
    {
    }
  return py::none();
}
} // namespace

void
ensure_interpreter()
{
  std::lock_guard<std::mutex> lock(interpreter_mutex);
  if (Py_IsInitialized())
    return;
  start_interpreter();
  started = true;
}

bool
started_interpreter() noexcept
{
  std::lock_guard<std::mutex> lock(interpreter_mutex);
  return started;
}

TensorMap
call(const std::string & op,
     const std::string & module,
     const std::string & function,
     const TensorMap & inputs)
{
  return detail::with_python(
      op,
      [&]
      {
        py::object result = py::module_::import(module.c_str()).attr(function.c_str())(inputs);
        if (!py::isinstance<py::dict>(result))
          throw aoti::FatalError(
              op + ": " + module + "." + function + " returned " +
              std::string(py::str(py::type::handle_of(result).attr("__name__"))) +
              ", expected dict[str, Tensor]");
        try
        {
          return result.cast<TensorMap>();
        }
        catch (const py::cast_error & e)
        {
          throw aoti::FatalError(op + ": " + module + "." + function +
                                 " returned a dict that is not dict[str, Tensor]: " + e.what());
        }
      });
}

namespace detail
{
void
rethrow_python_error(const std::string & op, py::error_already_set & e)
{
  const std::string message = py::str(e.value());
  const py::object cls = convergence_error_class();
  if (!cls.is_none() && e.matches(cls))
  {
    const py::object mask = py::getattr(e.value(), "converged_mask", py::none());
    const py::object unknowns = py::getattr(e.value(), "unknowns", py::none());
    if (THPVariable_Check(mask.ptr()) && THPVariable_Check(unknowns.ptr()))
      throw aoti::ConvergenceError(message, mask.cast<at::Tensor>(), unknowns.cast<at::Tensor>());
    throw aoti::ConvergenceError(message);
  }
  const std::string type = py::str(e.type().attr("__name__"));
  throw aoti::FatalError(op + ": " + type + ": " + message);
}
} // namespace detail
} // namespace neml2::eager
