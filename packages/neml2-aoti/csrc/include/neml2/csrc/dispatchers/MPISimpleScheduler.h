// NEML2 v3's MPISimpleScheduler: an MPIScheduler configured from device strings. Each rank of the
// communicator takes devices[local_rank % devices.size()] (ranks grouped per node; a node with
// fewer ranks than devices is an error) and chunks its calls there like SimpleScheduler. The
// construction is collective; without a loadable MPI plugin it throws FatalError. The host
// owns MPI_Init / MPI_Finalize (or uses MPIEnvironment). No MPI type appears in this header.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/dispatchers/MPIScheduler.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

namespace neml2::aoti
{
class NEML2_AOTI_EXPORT MPISimpleScheduler : public MPIScheduler
{
public:
  struct Config
  {
    /// Distinct cpu / cuda devices of one node, e.g. {"cuda:0", "cuda:1"} or {"cpu"}.
    std::vector<std::string> devices;
    /// Rows per chunk: one value for every device or one per device (empty = no chunking).
    std::vector<std::size_t> batch_sizes;
    /// The address of an MPI_Comm to split (read during construction); nullptr = MPI_COMM_WORLD.
    const void * comm = nullptr;
  };

  explicit MPISimpleScheduler(const Config & config);
  ~MPISimpleScheduler() override;
};

/// The device slot of a rank: local_rank % ndevices. FatalError when ndevices is 0, local_rank is
/// not below local_size, or the node has fewer ranks than devices (an idle device).
NEML2_AOTI_EXPORT std::size_t
mpi_device_index(std::size_t local_rank, std::size_t local_size, std::size_t ndevices);

/// The devices of MPISimpleScheduler::Config::devices, checked: at least one, each cpu or cuda,
/// none listed twice, bare cuda not mixed with cuda:N. FatalError otherwise.
NEML2_AOTI_EXPORT std::vector<c10::Device>
parse_mpi_devices(const std::vector<std::string> & devices);
} // namespace neml2::aoti
