// neml2::eager::load_model: the C++ twin of Python's neml2.load_model(path, name).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "neml2/csrc/eager/Model.h"
#include "neml2/csrc/eager/eager_export.h"

namespace neml2::eager
{
/// NEML2 v3: load [Models/<model_name>] from `input_file` (float64, on the input file's device)
/// after importing the Python extensions in `load` (.py files, package directories or dotted
/// module names, as --load of neml2-run). Returned by value through guaranteed copy elision
/// (Model is neither copyable nor movable): `auto m = neml2::eager::load_model("model.i", "model");`.
NEML2_EAGER_EXPORT Model load_model(const std::filesystem::path & input_file,
                                    const std::string & model_name,
                                    const std::vector<std::string> & load = {});

/// Load with every option (device, dtype, input-file overrides, extensions); see LoadOptions.
/// A template only so that a braced list (`{"ext.py"}`, `{}`) always means the `load` overload.
template <typename Options, detail::if_load_options<Options> = 0>
Model
load_model(const std::filesystem::path & input_file,
           const std::string & model_name,
           const Options & options)
{
  return Model(input_file, model_name, options);
}
} // namespace neml2::eager
