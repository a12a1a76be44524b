// MPIScheduler: one global batch split over the ranks of an MPI communicator. Each
// rank gets a device (ranks are grouped per node; device = devices[local_rank % n]) and a
// contiguous, balanced slice of the global batch; it evaluates its slice with a DispatchedModel
// over this scheduler (a SyncScheduler on its device), and gather() all-gathers the results.
//
// libneml2.so links no MPI library. MPI lives in a plugin, libneml2_mpi.so (built next to it when
// CMake finds an MPI, or named by the environment variable NEML2_MPI_PLUGIN), which libneml2
// loads the first time an MPI entry point is used; a host that never uses MPI never needs an MPI
// library. This header includes no mpi.h and a communicator is passed by address. When the
// plugin is absent or cannot be loaded (e.g. its MPI library is missing), every constructor
// throws a FatalError saying which.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "neml2/csrc/aoti/canonical.h"
#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

namespace neml2::aoti
{
/// True when the MPI plugin is present and loads (its first call loads it).
NEML2_AOTI_EXPORT bool mpi_enabled() noexcept;

/// RAII MPI initialization for hosts that do not initialize MPI themselves: MPI_Init_thread
/// (MPI_THREAD_FUNNELED) unless MPI is already initialized; MPI_Finalize on destruction only if it
/// initialized MPI.
class NEML2_AOTI_EXPORT MPIEnvironment
{
public:
  MPIEnvironment(int * argc, char *** argv);
  ~MPIEnvironment();
  MPIEnvironment(const MPIEnvironment &) = delete;
  MPIEnvironment & operator=(const MPIEnvironment &) = delete;

private:
  bool _owner = false;
};

class NEML2_AOTI_EXPORT MPIScheduler : public SyncScheduler
{
public:
  /// Collective over the communicator (the address of an MPI_Comm; nullptr = MPI_COMM_WORLD,
  /// duplicated internally). devices: distinct cpu/cuda devices of one node (bare cuda cannot be
  /// mixed with cuda:N); batch_sizes: chunk size per device (length 1 or one per device, 0 = no
  /// chunking). FatalError when a node has fewer ranks than devices or MPI support is absent.
  explicit MPIScheduler(std::vector<c10::Device> devices = {c10::Device(c10::kCPU)},
                        std::vector<int64_t> batch_sizes = {0},
                        const void * comm = nullptr);
  ~MPIScheduler() override;

  [[nodiscard]] int rank() const;
  [[nodiscard]] int size() const;
  /// Rank and rank count within this node.
  [[nodiscard]] int local_rank() const;
  [[nodiscard]] int local_size() const;

  /// {offset, count}: the rows of a global batch this rank owns (the first global_batch % size
  /// ranks own one row more).
  [[nodiscard]] std::pair<int64_t, int64_t> local_range(int64_t global_batch) const;

  /// This rank's rows of every entry whose dim 0 equals global_batch; other entries pass whole.
  [[nodiscard]] TensorMap local_slice(const TensorMap & global, int64_t global_batch) const;

  /// Collective: the dim-0 concatenation (in rank order) of every rank's tensor, on the local
  /// tensor's device. Trailing shapes and dtypes must agree across ranks.
  [[nodiscard]] at::Tensor gather(const at::Tensor & local) const;
  /// gather() of every entry (every rank must pass the same names).
  [[nodiscard]] TensorMap gather(const TensorMap & local) const;

private:
  struct Placement;
  struct Impl;
  MPIScheduler(Placement placement);
  static Placement place(const std::vector<c10::Device> & devices,
                         std::vector<int64_t> batch_sizes,
                         const void * comm);
  std::unique_ptr<Impl> _impl;
};
} // namespace neml2::aoti
