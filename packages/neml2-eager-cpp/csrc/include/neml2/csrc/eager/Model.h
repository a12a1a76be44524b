// neml2::eager::Model: a neml2 model loaded from its .i input file and evaluated in an embedded
// CPython interpreter (docs/design/runtime.md, "Eager C++ route").
//
// The surface mirrors neml2::aoti::Model (same value types from neml2/csrc/aoti/types.h), so a
// host switches routes by changing only the header and the load call, and implements the route
// interface neml2::aoti::RouteModel (neml2/csrc/aoti/RouteModel.h). Differences: there is no
// artifact; named_parameters() returns a copy; every parameter supports param_jacobian /
// param_vjp; every input/output pair is differentiable. param_overrides sets the named parameters
// for the duration of one call (under the model's mutex) and restores the previous values after
// it, also when it throws; an unknown name is set_parameter's FatalError.
//
// Loading (NEML2 v3's signatures): Model(input_file, model_name, device_override, load) and
// load_model(input_file, model_name, load). `load` lists Python extensions -- .py files, package
// directories or dotted module names, as neml2-run/neml2-compile --load -- imported in order
// before the model is built, so their registered types can appear in the input file. Without a
// device_override the tensors stay on the device the input file builds them on. LoadOptions
// (a separate overload) also sets the dtype and command-line style input-file overrides.
//
// Boundary: inputs are canonical (*batch, *sub_batch, *base) tensors of the model's dtype and
// device (never cast or moved); sub_batch is the variable's DECLARED sub-batch shape
// (input_sub_batch_shapes(), from the input file's [Settings] example_batch_shape; empty for
// plain-batch variables); leading batch shapes broadcast (batch-less inputs give batch-less
// outputs). Outputs come back at (*batch, *sub_batch, *base).
//
// Errors: every member (constructor included) throws only neml2::aoti::Exception subclasses. A
// Python ConvergenceError becomes the recoverable neml2::aoti::ConvergenceError; anything else
// becomes neml2::aoti::FatalError("neml2::eager::Model::<op>: <PythonType>: <message>").
//
// Threading: each call holds the GIL, and calls on one Model are also serialized by an internal
// mutex (torch drops the GIL inside many ops, so the GIL alone would let two threads interleave
// in one Python model): concurrent calls are safe and give the serial results, never parallel.
// The interpreter is started on first use if none is running and is never finalized; an already
// running interpreter (a Python host) is reused untouched.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/RouteModel.h"
#include "neml2/csrc/aoti/types.h"
#include "neml2/csrc/eager/eager_export.h"
#include "neml2/csrc/eager/python.h"

namespace neml2::eager
{
using neml2::aoti::BaseShapes;
using neml2::aoti::JacobianResult;
using neml2::aoti::JvpResult;
using neml2::aoti::VariablePairJacobian;

class ModelImpl;

/// Everything a load can set. Pass it to the Model constructor or load_model overload that takes
/// a LoadOptions (those overloads take no braced list, so `load_model(f, n, {"ext.py"})` and
/// `Model(f, n, {})` keep NEML2 v3's meaning):
///   neml2::eager::LoadOptions o;
///   o.dtype = c10::kFloat;
///   o.overrides = {"Models/model/E:=2e5"};
///   auto m = neml2::eager::load_model("model.i", "model", o);
struct LoadOptions
{
  /// Move the model's tensors to this device; std::nullopt keeps the input file's device.
  std::optional<c10::Device> device = std::nullopt;
  /// Floating-point dtype of the model's tensors.
  c10::ScalarType dtype = c10::kDouble;
  /// Command-line style input-file overrides ("Models/model/E:=2e5").
  std::vector<std::string> overrides = {};
  /// Python extensions imported before the model is built (see the file comment).
  std::vector<std::string> load = {};
};

namespace detail
{
template <typename T>
using if_load_options = std::enable_if_t<std::is_same_v<T, LoadOptions>, int>;
} // namespace detail

class NEML2_EAGER_EXPORT Model : public neml2::aoti::RouteModel
{
public:
  /// NEML2 v3: load [Models/<model_name>] from the input file in float64, on `device_override`
  /// when given (else the input file's device), after importing the `load` extensions in order.
  explicit Model(const std::filesystem::path & input_file,
                 const std::string & model_name,
                 std::optional<c10::Device> device_override = std::nullopt,
                 const std::vector<std::string> & load = {});

  /// Load with every option (device, dtype, input-file overrides, extensions).
  template <typename Options, detail::if_load_options<Options> = 0>
  Model(const std::filesystem::path & input_file,
        const std::string & model_name,
        const Options & options)
    : Model(input_file, model_name, options, Tag{})
  {
  }

  ~Model() override;

  Model(const Model &) = delete;
  Model & operator=(const Model &) = delete;
  Model(Model &&) = delete;
  Model & operator=(Model &&) = delete;

  /// Output values (*B, *sub, *out_base) keyed by output name.
  TensorMap forward(const TensorMap & inputs,
                    const TensorMap & param_overrides = {}) const override;

  /// forward() (the name neml2::Model::value of neml2/neml2.h calls; through the traced graph
  /// when neml2.jit tracing is on).
  TensorMap value(const TensorMap & inputs) const;

  /// {outputs, sum_in d(out)/d(in) . tangents[in]}; tangents are keyed and shaped like inputs,
  /// a missing tangent counts as zero. Every output gets a directional derivative.
  JvpResult jvp(const TensorMap & inputs,
                const TensorMap & tangents,
                const TensorMap & param_overrides = {}) const override;

  /// {outputs, J[out][in]} for every pair: (*B, *out_base, *in_base) for plain-batch variables
  /// (sub-batched pairs: the layouts of neml2.models.Model.jacobian).
  JacobianResult jacobian(const TensorMap & inputs,
                          const TensorMap & param_overrides = {}) const override;

  /// {outputs, J[out][param]} (NEML2 v3's pair): blocks (*B, *out_base, *param_base) for every
  /// parameter.
  JacobianResult param_jacobian(const TensorMap & inputs,
                                const TensorMap & param_overrides = {}) const override;

  /// Gradient of sum_B sum_out <cotangent[out], out> w.r.t. every parameter (*param_base).
  TensorMap param_vjp(const TensorMap & inputs,
                      const TensorMap & cotangents,
                      const TensorMap & param_overrides = {}) const override;

  /// Inputs in call order / outputs (the boundary of neml2.models.boundary.boundary_variables).
  const std::vector<std::string> & input_names() const override;
  const std::vector<std::string> & output_names() const override;
  const BaseShapes & input_base_shapes() const override;
  const BaseShapes & output_base_shapes() const override;
  /// Variable types ("Scalar", "SR2", ...), as neml2::aoti::Model::input_types().
  const std::vector<std::string> & input_types() const override;
  const std::vector<std::string> & output_types() const override;
  /// Declared sub-batch shape of each input / output ({} for a plain-batch variable).
  const BaseShapes & input_sub_batch_shapes() const override;
  const BaseShapes & output_sub_batch_shapes() const override;
  /// Base shape of every parameter. Names are the AOTI artifact's: the qualified names of the
  /// loaded model, a bare leaf prefixed with the model name ("model.E").
  std::map<std::string, std::vector<int64_t>> parameter_base_shapes() const override;

  /// What Python's print(model) shows: "Name: <name>\nInput: ...\nOutput: ..." (no final newline).
  std::string summary() const;

  c10::Device device() const override;
  c10::ScalarType dtype() const override;

  /// A copy of every parameter value: editing it changes nothing (use set_parameter).
  TensorMap named_parameters() const override;
  /// Replace one parameter (FatalError for an unknown name) from the next call on.
  void set_parameter(const std::string & name, const at::Tensor & value) override;

private:
  struct Tag
  {
  };
  Model(const std::filesystem::path & input_file,
        const std::string & model_name,
        const LoadOptions & options,
        Tag);

  std::unique_ptr<ModelImpl> _impl;
};
} // namespace neml2::eager
