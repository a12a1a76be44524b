// neml2::eager::load_model: the C++ twin of Python's neml2.load_model(path, name).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "neml2/csrc/eager/Model.h"

namespace neml2::eager
{
/// Load [Models/<model_name>] from `input_file` (float64 on the CPU unless told otherwise).
/// Returned by value through guaranteed copy elision (Model is neither copyable nor movable):
/// `auto m = neml2::eager::load_model("model.i", "model");`.
NEML2_EAGER_EXPORT Model load_model(const std::filesystem::path & input_file,
                                    const std::string & model_name,
                                    c10::Device device = c10::Device(c10::kCPU),
                                    c10::ScalarType dtype = c10::kDouble,
                                    const std::vector<std::string> & overrides = {});
} // namespace neml2::eager
