// Binding of neml2::aoti::Model as neml2.aoti._aoti.Model (model_bindings.cpp).
#pragma once

#include <torch/csrc/utils/pybind.h>

namespace neml2::aoti::python
{
/// Add the class Model to the module.
void bind_model(pybind11::module_ & m);
} // namespace neml2::aoti::python
