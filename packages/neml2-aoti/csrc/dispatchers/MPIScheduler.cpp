// MPIScheduler and MPIEnvironment, through the MPI plugin (mpi_plugin.h): libneml2.so links no
// MPI library; the plugin is loaded the first time an MPI entry point is used, and every entry
// point reports why when it cannot be.
#include "neml2/csrc/dispatchers/MPIScheduler.h"
#include "neml2/csrc/dispatchers/MPISimpleScheduler.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "compat.h"
#include "mpi_plugin.h"

namespace neml2::aoti
{
namespace
{
/// The plugin table, or null with the reason in `why`.
struct LoadedPlugin
{
  const neml2_mpi_plugin_table * table = nullptr;
  std::string why;
};

/// NEML2_MPI_PLUGIN when set, else libneml2_mpi.so next to this library.
std::filesystem::path
plugin_path()
{
  if (const char * chosen = std::getenv("NEML2_MPI_PLUGIN"); chosen && *chosen)
    return chosen;
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void *>(&plugin_path), &self) && self.dli_fname)
    return std::filesystem::path(self.dli_fname).parent_path() / "libneml2_mpi.so";
  return "libneml2_mpi.so";
}

LoadedPlugin
load_plugin()
{
  const auto path = plugin_path();
  std::error_code ec;
  if (!std::getenv("NEML2_MPI_PLUGIN") && !std::filesystem::exists(path, ec))
    return {nullptr,
            "libneml2 was built without MPI support (no " + path.string() +
                "; configure with -DNEML2_MPI=ON and an MPI installation)"};
  void * lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
  {
    const char * error = dlerror();
    return {nullptr,
            "MPI support could not be loaded: " + std::string(error ? error : path.string()) +
                " (the plugin needs the MPI library it was built against; NEML2_MPI_PLUGIN selects "
                "a plugin built against another)"};
  }
  // the plugin stays loaded for the life of the process (MPI state lives in it)
  auto entry = reinterpret_cast<neml2_mpi_plugin_entry>(dlsym(lib, "neml2_mpi_plugin"));
  if (!entry)
    return {nullptr, path.string() + " is not an MPI plugin of libneml2 (no neml2_mpi_plugin)"};
  const neml2_mpi_plugin_table * table = entry();
  if (!table || table->abi != neml2_mpi_plugin_abi)
    return {nullptr,
            path.string() + " is an MPI plugin of another libneml2 (interface version " +
                std::to_string(table ? table->abi : -1) + ", expected " +
                std::to_string(neml2_mpi_plugin_abi) + "); reinstall neml2-aoti"};
  return {table, ""};
}

const LoadedPlugin &
loaded_plugin()
{
  static const LoadedPlugin plugin = load_plugin();
  return plugin;
}

/// The plugin; FatalError "<what>: <why>" when it cannot be loaded.
const neml2_mpi_plugin_table &
mpi(const char * what)
{
  const auto & plugin = loaded_plugin();
  if (!plugin.table)
    throw FatalError(std::string(what) + ": " + plugin.why);
  return *plugin.table;
}

void
check(const neml2_mpi_plugin_table & api, int code, const char * call)
{
  if (code != 0)
  {
    char message[512];
    api.error_string(code, message, int(sizeof(message)));
    throw FatalError(std::string("MPIScheduler: ") + call + " failed: " + message);
  }
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

} // namespace

bool
mpi_enabled() noexcept
{
  try
  {
    return loaded_plugin().table != nullptr;
  }
  catch (...)
  {
    return false;
  }
}

MPIEnvironment::MPIEnvironment(int * argc, char *** argv)
{
  const auto & api = mpi("MPIEnvironment");
  int initialized_here = 0;
  check(api, api.init(argc, argv, &initialized_here), "MPI_Init_thread");
  _owner = initialized_here != 0;
}

MPIEnvironment::~MPIEnvironment()
{
  if (_owner)
    mpi("MPIEnvironment").finalize();
}

struct MPIScheduler::Impl
{
  const neml2_mpi_plugin_table * api = nullptr;
  void * comm = nullptr; // the plugin's handle of this scheduler's communicator
  int rank = 0, size = 1, local_rank = 0, local_size = 1;

  ~Impl()
  {
    if (api)
      api->comm_free(comm);
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
                    const void * comm)
{
  const auto & api = mpi("MPIScheduler");
  check_devices(devices);
  if (batch_sizes.empty())
    batch_sizes = {0};
  if (batch_sizes.size() != 1 && batch_sizes.size() != devices.size())
    throw FatalError("MPIScheduler: batch_sizes has " + std::to_string(batch_sizes.size()) +
                     " entries for " + std::to_string(devices.size()) +
                     " devices (give 1 or one per device)");
  if (!api.live())
    throw FatalError("MPIScheduler: MPI is not initialized (use neml2::aoti::MPIEnvironment or "
                     "MPI_Init first)");
  auto impl = std::make_unique<MPIScheduler::Impl>();
  check(api, api.comm_dup(comm, &impl->comm), "MPI_Comm_dup");
  impl->api = &api;
  int smallest = 0;
  check(api,
        api.placement(
            impl->comm, &impl->rank, &impl->size, &impl->local_rank, &impl->local_size, &smallest),
        "placement (MPI_Comm_rank, MPI_Comm_size, MPI_Comm_split_type, MPI_Allreduce)");
  if (smallest < int(devices.size()))
    throw FatalError("MPIScheduler: a node runs " + std::to_string(smallest) + " ranks for " +
                     std::to_string(devices.size()) +
                     " devices; start at least one rank per device on every node");
  const auto slot = std::size_t(impl->local_rank) % devices.size();
  const auto bs = batch_sizes.size() == 1 ? batch_sizes.front() : batch_sizes[slot];
  return MPIScheduler::Placement{devices[slot], bs, std::move(impl)};
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
    out.emplace(name,
                value.defined() && value.dim() >= 1 && value.size(0) == global_batch
                    ? value.narrow(0, offset, count)
                    : value);
  return out;
}

at::Tensor
MPIScheduler::gather(const at::Tensor & local) const
{
  const auto & api = *_impl->api;
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
  check(api, api.allgather_int64(_impl->comm, mine, 3, all.data()), "MPI_Allgather");
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
  check(api,
        api.allgatherv_bytes(_impl->comm,
                             host.data_ptr(),
                             int(host.nbytes()),
                             result.data_ptr(),
                             counts.data(),
                             displs.data()),
        "MPI_Allgatherv");
  return result.to(local.device());
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
