// neml2::aoti::RouteModel: the call surface every C++ route's model class implements
// (neml2::aoti::Model: cpp-aoti, neml2::aoti::DispatchedModel: cpp-dispatch,
// neml2::eager::Model: cpp-eager), so host code and the route-parity tests are written once
// against `RouteModel &` (docs/design/architecture.md, "How to add a route").
//
// Contract (every implementation):
//   - Boundary: inputs, tangents and cotangents are canonical (*batch, *sub_batch, *base) tensors
//     of the model's dtype and device (never cast or moved), keyed by variable name; leading batch
//     shapes broadcast, a batch-less input gives batch-less outputs; outputs come back at
//     (*batch, *sub_batch, *base). sub_batch is the declared shape (input_sub_batch_shapes()).
//   - Jacobian blocks J[out][in] are (*batch, *out_base, *in_base) for plain-batch variables;
//     parameter blocks (*batch, *out_base, *param_base). Which pairs exist is route-specific (the
//     compiled pairs of an artifact; every pair on cpp-eager).
//   - param_overrides replaces parameters (public names, e.g. "model.E") for that call only;
//     an unknown name is a FatalError, as for set_parameter.
//   - Errors: only neml2::aoti::Exception subclasses (Exception.h): ConvergenceError
//     (recoverable solver failure), FatalError (bad input/model; AggregateError of several
//     dispatched chunks).
//   - Calls on one object are serialized (safe from several threads, never parallel).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/aoti/types.h"

namespace neml2::aoti
{
class NEML2_AOTI_EXPORT RouteModel
{
public:
  virtual ~RouteModel();

  /// Output values keyed by output name.
  virtual TensorMap forward(const TensorMap & inputs,
                            const TensorMap & param_overrides = {}) const = 0;
  /// {outputs, d(out)/d(in) . tangents}; a missing tangent counts as zero.
  virtual JvpResult jvp(const TensorMap & inputs,
                        const TensorMap & tangents,
                        const TensorMap & param_overrides = {}) const = 0;
  /// {outputs, J[out][in]}.
  virtual JacobianResult jacobian(const TensorMap & inputs,
                                  const TensorMap & param_overrides = {}) const = 0;
  /// {outputs, J[out][param]}.
  virtual JacobianResult param_jacobian(const TensorMap & inputs,
                                        const TensorMap & param_overrides = {}) const = 0;
  /// Gradient of sum_out <cotangent[out], out> w.r.t. each parameter (summed over the batch for a
  /// global parameter).
  virtual TensorMap param_vjp(const TensorMap & inputs,
                              const TensorMap & cotangents,
                              const TensorMap & param_overrides = {}) const = 0;

  /// Inputs in call order / outputs, with their base shapes, declared sub-batch shapes and
  /// variable types ("Scalar", "SR2", ...).
  virtual const std::vector<std::string> & input_names() const = 0;
  virtual const std::vector<std::string> & output_names() const = 0;
  virtual const BaseShapes & input_base_shapes() const = 0;
  virtual const BaseShapes & output_base_shapes() const = 0;
  virtual const BaseShapes & input_sub_batch_shapes() const = 0;
  virtual const BaseShapes & output_sub_batch_shapes() const = 0;
  virtual const std::vector<std::string> & input_types() const = 0;
  virtual const std::vector<std::string> & output_types() const = 0;
  /// Base shape of every parameter, by public name.
  virtual std::map<std::string, std::vector<int64_t>> parameter_base_shapes() const = 0;

  /// The parameter values by public name (a map of the model's tensors: replacing an entry
  /// changes nothing; use set_parameter).
  virtual TensorMap named_parameters() const = 0;
  /// Replace one parameter from the next call on (FatalError for an unknown name or a value that
  /// does not fit).
  virtual void set_parameter(const std::string & name, const at::Tensor & value) = 0;

  virtual c10::Device device() const = 0;
  virtual c10::ScalarType dtype() const = 0;

protected:
  RouteModel() = default;
  RouteModel(const RouteModel &) = default;
  RouteModel & operator=(const RouteModel &) = default;
  RouteModel(RouteModel &&) = default;
  RouteModel & operator=(RouteModel &&) = default;
};
} // namespace neml2::aoti
