// neml2::Model and neml2::load_model: the NEML2 v2-style authoring API (docs/cpp/eager.md) over
// the cpp-eager route. A thin handle on a neml2::eager::Model: same interpreter, same
// boundary checks, same errors (neml2::aoti::FatalError "neml2::eager::Model::<op>: ...").
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include "neml2/csrc/eager/Model.h"
#include "neml2/tensors/Tensor.h"

namespace neml2
{
class NEML2_EAGER_EXPORT Model
{
public:
  /// Load [Models/<name>] from `path` on the CPU in the default dtype (see set_default_dtype).
  Model(const std::filesystem::path & path, const std::string & name);

  Model(const Model &) = delete;
  Model & operator=(const Model &) = delete;

  /// The model's name in the input file.
  const std::string & name() const { return _name; }

  /// Output values keyed by output name. Inputs are keyed by input name, canonical
  /// (*batch, *sub_batch, *base) tensors of the model's dtype and device; when every input is
  /// batch-less (e.g. Scalar::full) the outputs are too. Runs the traced graph when tracing is on.
  ValueMap value(const ValueMap & inputs);

  /// The eager-route model behind this handle (forward, jvp, jacobian, parameters, ...).
  eager::Model & eager() { return *_model; }
  const eager::Model & eager() const { return *_model; }

private:
  std::string _name;
  std::unique_ptr<eager::Model> _model;
};

/// The summary Python's print(model) shows: "Name: ...", "Input: ...", "Output: ..." (no
/// trailing newline).
NEML2_EAGER_EXPORT std::ostream & operator<<(std::ostream & os, const Model & model);

/// Load [Models/<mname>] from the input file at `path` (see Model::Model).
NEML2_EAGER_EXPORT std::shared_ptr<Model> load_model(const std::filesystem::path & path,
                                                     const std::string & mname);
} // namespace neml2
