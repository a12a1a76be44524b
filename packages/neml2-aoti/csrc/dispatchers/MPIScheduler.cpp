// MPIScheduler and MPIEnvironment. Compiled with NEML2_MPI defined when libneml2.so links MPI;
// otherwise every entry point reports that MPI support is absent.
#include "neml2/csrc/dispatchers/MPIScheduler.h"
#include "neml2/csrc/dispatchers/MPISimpleScheduler.h"

#include <climits>
#include <string>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "compat.h"

#ifdef NEML2_MPI
#include <mpi.h>
#endif

namespace neml2::aoti
{
namespace
{
[[noreturn]] void
no_mpi(const char * what)
{
  throw FatalError(std::string(what) +
                   ": libneml2 was built without MPI support (configure with -DNEML2_MPI=ON and "
                   "an MPI installation)");
}

void
check_devices(const std::vector<c10::Device> & devices)
{
  if (devices.empty())
    throw FatalError("MPIScheduler: at least one device is required");
  for (std::size_t i = 0; i < devices.size(); ++i)
  {
    if (!devices[i].is_cpu() && !devices[i].is_cuda())
      throw FatalError("MPIScheduler: device " + devices[i].str() + " is neither cpu nor cuda");
    for (std::size_t j = 0; j < i; ++j)
    {
      if (devices[i] == devices[j])
        throw FatalError("MPIScheduler: device " + devices[i].str() + " is listed twice");
      if (devices[i].is_cuda() && devices[j].is_cuda() &&
          devices[i].has_index() != devices[j].has_index())
        throw FatalError("MPIScheduler: bare cuda cannot be mixed with indexed cuda devices (" +
                         devices[j].str() + ", " + devices[i].str() + ")");
    }
  }
}

#ifdef NEML2_MPI

void
check(int code, const char * call)
{
  if (code != MPI_SUCCESS)
  {
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, message, &length);
    throw FatalError(std::string("MPIScheduler: ") + call + " failed: " +
                     std::string(message, std::size_t(length)));
  }
}

bool
mpi_live()
{
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}
#endif
} // namespace

bool
mpi_enabled() noexcept
{
#ifdef NEML2_MPI
  return true;
#else
  return false;
#endif
}

MPIEnvironment::MPIEnvironment([[maybe_unused]] int * argc, [[maybe_unused]] char *** argv)
{
#ifdef NEML2_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
  {
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    _owner = true;
  }
#else
  no_mpi("MPIEnvironment");
#endif
}

MPIEnvironment::~MPIEnvironment()
{
#ifdef NEML2_MPI
  if (_owner && mpi_live())
    MPI_Finalize();
#endif
}

struct MPIScheduler::Impl
{
#ifdef NEML2_MPI
  MPI_Comm comm = MPI_COMM_NULL;
#endif
  int rank = 0, size = 1, local_rank = 0, local_size = 1;

  ~Impl()
  {
#ifdef NEML2_MPI
    if (comm != MPI_COMM_NULL && mpi_live())
      MPI_Comm_free(&comm);
#endif
  }
};

struct MPIScheduler::Placement
{
  c10::Device device = c10::Device(c10::kCPU);
  int64_t batch_size = 0;
  std::unique_ptr<Impl> impl;
};

MPIScheduler::Placement
MPIScheduler::place(const std::vector<c10::Device> & devices,
      std::vector<int64_t> batch_sizes,
      [[maybe_unused]] const void * comm)
{
#ifndef NEML2_MPI
  no_mpi("MPIScheduler");
#else
  check_devices(devices);
  if (batch_sizes.empty())
    batch_sizes = {0};
  if (batch_sizes.size() != 1 && batch_sizes.size() != devices.size())
    throw FatalError("MPIScheduler: batch_sizes has " + std::to_string(batch_sizes.size()) +
                     " entries for " + std::to_string(devices.size()) +
                     " devices (give 1 or one per device)");
  if (!mpi_live())
    throw FatalError("MPIScheduler: MPI is not initialized (use neml2::aoti::MPIEnvironment or "
                     "MPI_Init first)");
  auto impl = std::make_unique<MPIScheduler::Impl>();
  const MPI_Comm parent = comm ? *static_cast<const MPI_Comm *>(comm) : MPI_COMM_WORLD;
  check(MPI_Comm_dup(parent, &impl->comm), "MPI_Comm_dup");
  check(MPI_Comm_rank(impl->comm, &impl->rank), "MPI_Comm_rank");
  check(MPI_Comm_size(impl->comm, &impl->size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(impl->comm, MPI_COMM_TYPE_SHARED, impl->rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  MPI_Comm_rank(node, &impl->local_rank);
  MPI_Comm_size(node, &impl->local_size);
  int smallest = 0;
  MPI_Allreduce(&impl->local_size, &smallest, 1, MPI_INT, MPI_MIN, impl->comm);
  MPI_Comm_free(&node);
  if (smallest < int(devices.size()))
    throw FatalError("MPIScheduler: a node runs " + std::to_string(smallest) + " ranks for " +
                     std::to_string(devices.size()) +
                     " devices; start at least one rank per device on every node");
  const auto slot = std::size_t(impl->local_rank) % devices.size();
  const auto bs = batch_sizes.size() == 1 ? batch_sizes.front() : batch_sizes[slot];
  return MPIScheduler::Placement{devices[slot], bs, std::move(impl)};
#endif
}

MPIScheduler::MPIScheduler(std::vector<c10::Device> devices,
                           std::vector<int64_t> batch_sizes,
                           const void * comm)
  : MPIScheduler(place(devices, std::move(batch_sizes), comm))
{
}

MPIScheduler::MPIScheduler(Placement placement)
  : SyncScheduler(placement.device, placement.batch_size),
    _impl(std::move(placement.impl))
{
}

MPIScheduler::~MPIScheduler() = default;

int
MPIScheduler::rank() const
{
  return _impl->rank;
}

int
MPIScheduler::size() const
{
  return _impl->size;
}

int
MPIScheduler::local_rank() const
{
  return _impl->local_rank;
}

int
MPIScheduler::local_size() const
{
  return _impl->local_size;
}

std::pair<int64_t, int64_t>
MPIScheduler::local_range(int64_t global_batch) const
{
  const int64_t n = _impl->size, r = _impl->rank;
  const int64_t base = global_batch / n, extra = global_batch % n;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

TensorMap
MPIScheduler::local_slice(const TensorMap & global, int64_t global_batch) const
{
  const auto [offset, count] = local_range(global_batch);
  TensorMap out;
  for (const auto & [name, value] : global)
    out.emplace(name, value.defined() && value.dim() >= 1 && value.size(0) == global_batch
                          ? value.narrow(0, offset, count)
                          : value);
  return out;
}

at::Tensor
MPIScheduler::gather([[maybe_unused]] const at::Tensor & local) const
{
#ifndef NEML2_MPI
  no_mpi("MPIScheduler::gather");
#else
  if (!local.defined() || local.dim() < 1)
    throw FatalError("MPIScheduler::gather: needs a tensor with a leading batch axis");
  const auto host = local.to(at::kCPU).contiguous();
  int64_t row_numel = 1;
  for (int64_t d = 1; d < host.dim(); ++d)
    row_numel *= host.size(d);
  // {rows, elements per row, element size} of every rank: trailing shapes and dtypes must agree.
  const int64_t mine[3] = {host.size(0), row_numel, int64_t(host.element_size())};
  const auto n = std::size_t(_impl->size);
  std::vector<int64_t> all(3 * n);
  check(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, _impl->comm),
        "MPI_Allgather");
  std::vector<int> counts(n), displs(n);
  int64_t total_rows = 0, offset = 0;
  for (std::size_t r = 0; r < n; ++r)
  {
    if (all[3 * r + 1] != mine[1] || all[3 * r + 2] != mine[2])
      throw FatalError("MPIScheduler::gather: rank " + std::to_string(r) +
                       " passed a tensor whose trailing shape or dtype differs from rank " +
                       std::to_string(_impl->rank) + "'s");
    const int64_t bytes = all[3 * r] * row_numel * mine[2];
    if (offset + bytes > INT_MAX)
      throw FatalError("MPIScheduler::gather: more than 2 GiB gathered in one call");
    counts[r] = int(bytes);
    displs[r] = int(offset);
    offset += bytes;
    total_rows += all[3 * r];
  }
  auto shape = host.sizes().vec();
  shape[0] = total_rows;
  auto result = at::empty(shape, host.options());
  check(MPI_Allgatherv(host.data_ptr(), int(host.nbytes()), MPI_BYTE, result.data_ptr(),
                       counts.data(), displs.data(), MPI_BYTE, _impl->comm),
        "MPI_Allgatherv");
  return result.to(local.device());
#endif
}

TensorMap
MPIScheduler::gather(const TensorMap & local) const
{
  TensorMap out;
  for (const auto & [name, value] : local)
    out.emplace(name, gather(value));
  return out;
}

std::size_t
mpi_device_index(std::size_t local_rank, std::size_t local_size, std::size_t ndevices)
{
  if (ndevices == 0)
    throw FatalError("mpi_device_index: at least one device is required");
  if (local_rank >= local_size)
    throw FatalError("mpi_device_index: local rank " + std::to_string(local_rank) +
                     " is not below the node's rank count " + std::to_string(local_size));
  if (local_size < ndevices)
    throw FatalError("mpi_device_index: a node runs " + std::to_string(local_size) + " ranks for " +
                     std::to_string(ndevices) +
                     " devices; start at least one rank per device on every node");
  return local_rank % ndevices;
}

std::vector<c10::Device>
parse_mpi_devices(const std::vector<std::string> & devices)
{
  std::vector<c10::Device> out;
  out.reserve(devices.size());
  for (const auto & d : devices)
    out.push_back(parse_device(d, "MPISimpleScheduler"));
  check_devices(out);
  return out;
}

namespace
{
std::vector<int64_t>
mpi_batch_sizes(const std::vector<std::size_t> & values)
{
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (auto v : values)
    out.push_back(checked_size(v, "MPISimpleScheduler", "batch_sizes"));
  return out;
}
} // namespace

MPISimpleScheduler::MPISimpleScheduler(const Config & config)
  : MPIScheduler(
        parse_mpi_devices(config.devices), mpi_batch_sizes(config.batch_sizes), config.comm)
{
}

MPISimpleScheduler::~MPISimpleScheduler() = default;
} // namespace neml2::aoti
