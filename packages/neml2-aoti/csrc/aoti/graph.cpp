#include "graph.h"

#include <filesystem>
#include <mutex>

#include <c10/util/Exception.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace
{
/// torch's AOTIModelPackageLoader is not safe to construct or destroy concurrently (it unpacks
/// the package into a temporary folder): three threads loading their own Model at once failed
/// with "No device information found" or crashed. Loads are one-off, so they take turns.
std::mutex &
loader_mutex()
{
  static std::mutex m;
  return m;
}
} // namespace

Graph::Graph(const std::string & path, const c10::Device & device)
  : _file(std::filesystem::path(path).filename().string())
{
  if (!std::filesystem::is_regular_file(path))
    throw FatalError("graph file '" + path +
                     "' listed in metadata.json is missing; the artifact is incomplete, "
                     "re-run neml2-compile");
  const c10::DeviceIndex index = device.is_cpu() ? -1 : device.index();
  try
  {
    const std::lock_guard<std::mutex> lock(loader_mutex());
    _loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(
        path, "model", /*run_single_threaded=*/false, /*num_runners=*/1, index);
  }
  catch (const c10::Error & e)
  {
    throw FatalError("cannot load graph '" + path + "': " + e.what_without_backtrace());
  }
  catch (const std::exception & e)
  {
    throw FatalError("cannot load graph '" + path + "': " + e.what());
  }
}

Graph::~Graph()
{
  const std::lock_guard<std::mutex> lock(loader_mutex());
  _loader.reset();
}

std::vector<at::Tensor>
Graph::run(std::vector<at::Tensor> && inputs) const
{
  return _loader->boxed_run(std::move(inputs));
}

std::vector<at::Tensor>
Graph::run(std::vector<at::Tensor> && inputs, std::size_t n_outputs) const
{
  auto out = _loader->boxed_run(std::move(inputs));
  if (out.size() != n_outputs)
    throw FatalError("graph '" + _file + "' returned " + std::to_string(out.size()) +
                     " outputs, metadata.json implies " + std::to_string(n_outputs) +
                     "; the artifact is inconsistent, re-run neml2-compile");
  return out;
}
} // namespace neml2::aoti
