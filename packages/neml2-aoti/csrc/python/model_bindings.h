// Binding of neml2::aoti::Model as neml2.aoti._aoti.Model (model_bindings.cpp).
#pragma once

#include <filesystem>

#include <torch/csrc/utils/pybind.h>

#include "neml2/csrc/aoti/canonical.h"

namespace neml2::aoti::python
{
/// A name -> tensor mapping from Python (dict or any Mapping); None is empty. `what` ("inputs")
/// names it in the TypeError of a key that is not a str or a value that is not a tensor.
TensorMap to_map(const pybind11::handle & obj, const char * what);

/// The path given for an artifact (a folder or its metadata file: the loader resolves which).
std::filesystem::path artifact_root(const pybind11::object & path);

/// A torch.dtype or its name ("float32"); TypeError otherwise.
c10::ScalarType to_scalar_type(const pybind11::object & dtype);

/// Add the class Model to the module.
void bind_model(pybind11::module_ & m);
} // namespace neml2::aoti::python
