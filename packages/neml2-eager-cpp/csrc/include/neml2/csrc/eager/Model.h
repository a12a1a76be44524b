// neml2::eager::Model: a neml2 model loaded from its .i input file and evaluated in an embedded
// CPython interpreter (aoti.md §6, seed "Eager evaluation from C++").
//
// The surface mirrors neml2::aoti::Model (same value types from neml2/csrc/aoti/types.h), so a
// host switches routes by changing only the header and the load call. Differences: there is no
// artifact and no param_overrides; named_parameters() returns a copy; every parameter supports
// param_jacobian / param_vjp; every input/output pair is differentiable.
//
// Boundary: inputs are canonical (*batch, *sub_batch, *base) tensors of the model's dtype and
// device (never cast or moved); sub_batch is the variable's DECLARED sub-batch shape
// (input_sub_batch_shapes(), from the input file's [Settings] example_batch_shape; empty for
// plain-batch variables); a batch-less input counts as batch (1,); leading batch shapes
// broadcast. Outputs come back at (*batch, *sub_batch, *base).
//
// Errors: every member (constructor included) throws only neml2::aoti::Exception subclasses. A
// Python ConvergenceError becomes the recoverable neml2::aoti::ConvergenceError; anything else
// becomes neml2::aoti::FatalError("neml2::eager::Model::<op>: <PythonType>: <message>").
//
// Threading: each call holds the GIL, and calls on one Model are also serialized by an internal
// mutex (torch drops the GIL inside many ops, so the GIL alone would let two threads interleave
// in one Python model): concurrent calls are safe and give the serial results, never parallel. The interpreter is started on first use if none is running and is
// never finalized; an already running interpreter (a Python host) is reused untouched.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/types.h"
#include "neml2/csrc/eager/python.h"

namespace neml2::eager
{
using neml2::aoti::BaseShapes;
using neml2::aoti::JacobianResult;
using neml2::aoti::JvpResult;
using neml2::aoti::VariablePairJacobian;

class ModelImpl;

class NEML2_EAGER_EXPORT Model
{
public:
  /// Load [Models/<model_name>] from the input file, with its tensors on `device` in `dtype`.
  /// `overrides` are command-line style input-file overrides ("Models/model/E:=2e5").
  Model(const std::filesystem::path & input_file,
        const std::string & model_name,
        c10::Device device = c10::Device(c10::kCPU),
        c10::ScalarType dtype = c10::kDouble,
        const std::vector<std::string> & overrides = {});
  ~Model();

  Model(const Model &) = delete;
  Model & operator=(const Model &) = delete;
  Model(Model &&) = delete;
  Model & operator=(Model &&) = delete;

  /// Output values (*B, *sub, *out_base) keyed by output name.
  TensorMap forward(const TensorMap & inputs);

  /// forward(), except that when every input is batch-less the outputs are too (no leading
  /// batch axis of 1): the semantics of neml2::Model::value (neml2/neml2.h).
  TensorMap value(const TensorMap & inputs);

  /// {outputs, sum_in d(out)/d(in) . tangents[in]}; tangents are keyed and shaped like inputs,
  /// a missing tangent counts as zero. Every output gets a directional derivative.
  JvpResult jvp(const TensorMap & inputs, const TensorMap & tangents);

  /// {outputs, J[out][in]} for every pair: (*B, *out_base, *in_base) for plain-batch variables
  /// (sub-batched pairs: the layouts of neml2.models.Model.jacobian).
  JacobianResult jacobian(const TensorMap & inputs);

  /// J[out][param] blocks (*B, *out_base, *param_base) for every parameter.
  VariablePairJacobian param_jacobian(const TensorMap & inputs);

  /// Gradient of sum_B sum_out <cotangent[out], out> w.r.t. every parameter (*param_base).
  TensorMap param_vjp(const TensorMap & inputs, const TensorMap & cotangents);

  /// Inputs in call order / outputs (the boundary of neml2.models.boundary.boundary_variables).
  const std::vector<std::string> & input_names() const;
  const std::vector<std::string> & output_names() const;
  const BaseShapes & input_base_shapes() const;
  const BaseShapes & output_base_shapes() const;
  /// Variable types ("Scalar", "SR2", ...), as neml2::aoti::Model::input_types().
  const std::vector<std::string> & input_types() const;
  const std::vector<std::string> & output_types() const;
  /// Declared sub-batch shape of each input / output ({} for a plain-batch variable).
  const BaseShapes & input_sub_batch_shapes() const;
  const BaseShapes & output_sub_batch_shapes() const;
  /// Base shape of every parameter. Names are the AOTI artifact's: the qualified names of the
  /// loaded model, a bare leaf prefixed with the model name ("model.E").
  std::map<std::string, std::vector<int64_t>> parameter_base_shapes() const;

  /// What Python's print(model) shows: "Name: <name>\nInput: ...\nOutput: ..." (no final newline).
  std::string summary() const;

  c10::Device device() const;
  c10::ScalarType dtype() const;

  /// A copy of every parameter value: editing it changes nothing (use set_parameter).
  TensorMap named_parameters() const;
  /// Replace one parameter (FatalError for an unknown name) from the next call on.
  void set_parameter(const std::string & name, const at::Tensor & value);

private:
  std::unique_ptr<ModelImpl> _impl;
};
} // namespace neml2::eager
