// neml2::aoti::DispatchedModel: one compiled artifact evaluated in chunks over the devices of a
// WorkScheduler (docs/design/runtime.md, "Chunking rules"). Same call surface as
// neml2::aoti::Model (both implement neml2::aoti::RouteModel); not a subclass of Model.
//
// Chunking rules:
//   - B is dim 0 of the inputs with the most batch axes, counted in front of each variable's
//     trailing (*sub_batch, *base) shape: sub-batch axes are never cut (an input at its bare
//     trailing shape is batch-less and passed through); inputs/tangents/cotangents with that
//     many batch axes and dim 0 == B are narrowed per chunk, all others (dim 0 == 1, fewer batch
//     axes) pass through.
//   - Each chunk is moved to its device, run on that device's Model, moved back to the device of
//     the first input (in input_names() order) and concatenated on dim 0 in batch order.
//   - Jacobian blocks of rank out_trailing + in_trailing (param_base for parameter blocks) are
//     batch-independent and returned uncut (from the first chunk).
//   - Batched parameters (leading dim == B, stored or passed as overrides) are sliced per chunk and
//     passed as overrides; param_vjp concatenates their chunk adjoints and sums global ones.
//   - Synchronous fast path: one chunk covering B on the inputs' device calls the Model directly.
// Parameters: the first device's Model is the primary (metadata source, master parameters). A
// mutable named_parameters() or set_parameter marks them dirty; the next call slot-assigns them
// into every other device's Model. set_solver_config reaches every device copy.
// Every public call throws only neml2::aoti::Exception subclasses (AggregateError when several
// asynchronous chunks failed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/RouteModel.h"
#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/aoti/types.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

namespace neml2::aoti
{
class NEML2_AOTI_EXPORT DispatchedModel : public RouteModel
{
public:
  /// Load one Model of the artifact per scheduler device (dtype kDouble or kFloat).
  DispatchedModel(const std::filesystem::path & artifact_root,
                  std::shared_ptr<WorkScheduler> scheduler,
                  c10::ScalarType dtype = c10::kDouble);
  /// Wrap an already loaded Model; the scheduler must be synchronous with the Model's device type.
  DispatchedModel(std::unique_ptr<Model> model, std::shared_ptr<WorkScheduler> scheduler);
  ~DispatchedModel() override;

  DispatchedModel(const DispatchedModel &) = delete;
  DispatchedModel & operator=(const DispatchedModel &) = delete;
  DispatchedModel(DispatchedModel &&) noexcept;
  DispatchedModel & operator=(DispatchedModel &&) noexcept;

  TensorMap forward(const TensorMap & inputs,
                    const TensorMap & param_overrides = {}) const override;
  JvpResult jvp(const TensorMap & inputs,
                const TensorMap & tangents,
                const TensorMap & param_overrides = {}) const override;
  JacobianResult jacobian(const TensorMap & inputs,
                          const TensorMap & param_overrides = {}) const override;
  JacobianResult param_jacobian(const TensorMap & inputs,
                                const TensorMap & param_overrides = {}) const override;
  TensorMap param_vjp(const TensorMap & inputs,
                      const TensorMap & cotangents,
                      const TensorMap & param_overrides = {}) const override;

  const std::vector<std::string> & input_names() const override;
  const std::vector<std::string> & output_names() const override;
  const BaseShapes & input_base_shapes() const override;
  const BaseShapes & output_base_shapes() const override;
  const BaseShapes & input_sub_batch_shapes() const override;
  const BaseShapes & output_sub_batch_shapes() const override;
  const std::vector<std::string> & input_types() const override;
  const std::vector<std::string> & output_types() const override;
  std::map<std::string, std::vector<int64_t>> parameter_base_shapes() const override;
  const std::vector<std::pair<std::string, std::string>> & derivatives() const;
  const std::vector<std::pair<std::string, std::string>> & parameter_derivatives() const;
  /// Shape of J[out][in] behind the batch axes (Model::jacobian_block_shape).
  std::vector<int64_t> jacobian_block_shape(const std::string & out, const std::string & in) const;
  /// The primary (first scheduler) device and the dtype of every device copy.
  c10::Device device() const override;
  c10::ScalarType dtype() const override;

  /// The master parameters (primary device). The mutable overload marks them dirty; the const one
  /// is a map of the same tensors.
  TensorMap & named_parameters();
  TensorMap named_parameters() const override;
  void set_parameter(const std::string & name, const at::Tensor & value) override;

  void set_solver_config(const SolverConfig & config);
  const SolverConfig & solver_config() const;

  const std::shared_ptr<WorkScheduler> & scheduler() const;
  /// The Model of scheduler device i (0 = primary).
  Model & model(std::size_t i = 0);

private:
  struct Call;
  template <typename R, typename F>
  std::vector<R> dispatch(const Call & call, F && run) const;
  Call prepare(const char * op,
               const TensorMap & inputs,
               const TensorMap & param_overrides,
               const TensorMap * per_input = nullptr,
               const TensorMap * per_output = nullptr) const;
  void sync_parameters() const;

  std::vector<std::unique_ptr<Model>> _models;
  std::shared_ptr<WorkScheduler> _scheduler;
  // Set by the mutable parameter accessors; the next call (const) copies the master parameters
  // to the other devices under _sync, so concurrent calls never copy twice or race on the flag.
  mutable bool _dirty = false;
  std::unique_ptr<std::mutex> _sync = std::make_unique<std::mutex>();
};
} // namespace neml2::aoti
