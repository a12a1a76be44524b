// A CPython extension module using neml2::eager::Model: proves libneml2_eager.so works inside a
// Python host (it reuses the running interpreter, never starts or finalizes one, and calls made
// while the host thread holds the GIL neither deadlock nor bypass the model's serialization).
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/eager/load_model.h"

namespace py = pybind11;

PYBIND11_MODULE(python_host_ext, m)
{
  m.def("started_interpreter", &neml2::eager::started_interpreter);
  py::class_<neml2::eager::Model>(m, "Model")
      .def(py::init<const std::string &, const std::string &>())
      .def("forward",
           &neml2::eager::Model::forward,
           py::arg("inputs"),
           py::arg("param_overrides") = neml2::aoti::TensorMap{})
      // Runs the C++ call with the GIL released, as a multi-threaded host would.
      .def("forward_nogil",
           &neml2::eager::Model::forward,
           py::arg("inputs"),
           py::arg("param_overrides") = neml2::aoti::TensorMap{},
           py::call_guard<py::gil_scoped_release>())
      .def("input_names", &neml2::eager::Model::input_names);
  m.def("recoverable_message",
        [](neml2::eager::Model & model, const neml2::aoti::TensorMap & inputs) -> std::string
        {
          try
          {
            model.forward(inputs);
          }
          catch (const neml2::aoti::Exception & e)
          {
            return std::string(e.recoverable() ? "recoverable: " : "fatal: ") + e.what();
          }
          return "no error";
        });
}
