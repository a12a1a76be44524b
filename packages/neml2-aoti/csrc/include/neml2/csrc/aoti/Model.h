// neml2::aoti::Model: a compiled (AOTI) neml2 artifact loaded into libneml2.so
// (docs/design/runtime.md).
//
// An artifact root holds metadata.json and one leaf <device>/<dtype>/ of .pt2 graphs per compiled
// (device, dtype). The model runs its segments (forward graphs and implicit Newton solves) one
// after another over a shared name -> tensor state; no Python is involved.
//
// Boundary: inputs are canonical (*batch, *base) tensors of the model's dtype and device (never
// cast or moved); leading batch shapes broadcast, and batch-less inputs (batch ()) give batch-less
// outputs; an empty batch gives empty outputs without running a graph.
// Every public member (the constructor included) throws only neml2::aoti::Exception subclasses:
// FatalError for bad input/artifact, ConvergenceError (recoverable) for solver failures.
//
// Threading: calls on one Model are serialized by an internal mutex (safe, not parallel); use one
// Model per host thread for parallelism. The evaluation members are const (as in NEML2 v3): they
// may run on a `const Model &`, and still serialize on that mutex. The mutable named_parameters()
// hands out a reference: mutating it while another thread calls the same Model is a data race the
// caller must avoid. Model implements the route interface neml2::aoti::RouteModel (RouteModel.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/RouteModel.h"
#include "neml2/csrc/aoti/aoti_export.h"
#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/aoti/types.h"

namespace neml2::aoti
{
class ModelImpl;

class NEML2_AOTI_EXPORT Model : public RouteModel
{
public:
  /// Load the leaf <artifact_root>/<device type>/<dtype>/ described by
  /// <artifact_root>/metadata.json. `artifact_root` may also name the metadata file:
  /// metadata.json, or NEML2 v3's documented <model>_meta.json in the artifact folder. A cuda
  /// device with an index pins every graph to that GPU. dtype is kFloat64 or kFloat32.
  explicit Model(const std::filesystem::path & artifact_root,
                 c10::Device device = c10::Device(c10::kCPU),
                 c10::ScalarType dtype = c10::kDouble);
  ~Model() override;

  Model(const Model &) = delete;
  Model & operator=(const Model &) = delete;
  Model(Model &&) = delete;
  Model & operator=(Model &&) = delete;

  /// Output values (*B, *out_base) keyed by output name. param_overrides replaces promoted
  /// parameters for this call only (scalar (*param_base) or batched (*B, *param_base)).
  TensorMap forward(const TensorMap & inputs,
                    const TensorMap & param_overrides = {}) const override;

  /// {outputs, d(out)/d(in) . tangents}; a missing tangent counts as zero. Only outputs that
  /// appear in a compiled derivative pair get a directional derivative.
  JvpResult jvp(const TensorMap & inputs,
                const TensorMap & tangents,
                const TensorMap & param_overrides = {}) const override;

  /// {outputs, J[out][in]} for the compiled pairs (metadata "derivatives"); blocks are
  /// (*B, *jacobian_block_shape(out, in)): (*B, *out_base, *in_base) for plain-batch variables.
  JacobianResult jacobian(const TensorMap & inputs,
                          const TensorMap & param_overrides = {}) const override;

  /// {outputs, J[out][param]} (NEML2 v3's pair): blocks (*B, *out_base, *param_base) for the
  /// compiled parameter pairs.
  JacobianResult param_jacobian(const TensorMap & inputs,
                                const TensorMap & param_overrides = {}) const override;

  /// Gradient of sum_out <cotangent[out], out> w.r.t. each compiled parameter: summed over the
  /// batch for a global parameter (*param_base), per element for a batched one (*B, *param_base).
  TensorMap param_vjp(const TensorMap & inputs,
                      const TensorMap & cotangents,
                      const TensorMap & param_overrides = {}) const override;

  /// Master inputs / outputs in graph-call order (boundary names, promoted parameters excluded).
  const std::vector<std::string> & input_names() const override;
  const std::vector<std::string> & output_names() const override;
  const BaseShapes & input_base_shapes() const override;
  const BaseShapes & output_base_shapes() const override;
  /// Declared sub-batch shape of each input / output: a variable is (*batch, *sub_batch, *base)
  /// and only its leading batch axes broadcast ({} for a plain-batch variable).
  const BaseShapes & input_sub_batch_shapes() const override;
  const BaseShapes & output_sub_batch_shapes() const override;
  /// The metadata var_type of each input / output ("Scalar", "SR2", ...; "" when unrecorded).
  const std::vector<std::string> & input_types() const override;
  const std::vector<std::string> & output_types() const override;
  /// Natural (typed) base shape of each promoted parameter.
  std::map<std::string, std::vector<int64_t>> parameter_base_shapes() const override;
  /// Compiled [out, in] and [out, param] pairs.
  const std::vector<std::pair<std::string, std::string>> & derivatives() const;
  const std::vector<std::pair<std::string, std::string>> & parameter_derivatives() const;
  /// Shape of J[out][in] behind the batch axes for a compiled pair: (*out_sub, *out_base,
  /// *in_sub, *in_base), or (*sub, *out_base, *in_base) for a site-diagonal pair (a per-site
  /// output of the same site's input, as py-eager's Model.jacobian). FatalError for another pair.
  std::vector<int64_t> jacobian_block_shape(const std::string & out, const std::string & in) const;

  c10::Device device() const override;
  c10::ScalarType dtype() const override;
  const std::filesystem::path & artifact_root() const;

  /// Promoted parameters by name, on the model's device and dtype. A mutable reference: in-place
  /// edits and slot replacement both take effect on the next call (a (B, *param_base) value makes
  /// the parameter batched). Values are checked (shape, dtype, device) when a call uses them.
  TensorMap & named_parameters();
  /// The const (RouteModel) read: a map of the same tensors (in-place edits of them take effect,
  /// replacing an entry of the copy does not).
  TensorMap named_parameters() const override;
  /// Replace one promoted parameter; FatalError for a name that is not promoted or a value whose
  /// trailing shape, dtype or device does not fit.
  void set_parameter(const std::string & name, const at::Tensor & value) override;

  /// Newton settings used by every implicit segment from the next call on (initially the
  /// artifact's solver_config with the C++ defaults for missing keys).
  void set_solver_config(const SolverConfig & config);
  const SolverConfig & solver_config() const;
  /// Newton log lines of the last call (filled only when SolverConfig::collect_log is true).
  std::vector<std::string> solver_log() const;

private:
  std::unique_ptr<ModelImpl> _impl;
};
} // namespace neml2::aoti
