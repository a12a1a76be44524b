#include "graph.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include <sys/stat.h>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <c10/util/hash.h>
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

/// Hex SHA-1 of the file's bytes. A file hashed before in this process is not read again while
/// its device, inode, size and status-change time (ctime, which every write updates and no user
/// can set) are unchanged: a host that loads one artifact per thread pays the hash once.
std::string
file_sha1(const std::string & path)
{
  struct ::stat st{};
  if (::stat(path.c_str(), &st) != 0)
    throw FatalError("cannot read graph file '" + path + "'");
  using Key = std::tuple<dev_t, ino_t, off_t, time_t, long>;
  const Key key{st.st_dev, st.st_ino, st.st_size, st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  static std::mutex mutex;
  static std::map<Key, std::string> known;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end())
      return it->second;
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  if (!in.read(bytes.data(), st.st_size) || in.peek() != std::char_traits<char>::eof())
    throw FatalError("cannot read graph file '" + path + "' (it changed while being read)");
  auto digest = c10::sha1(bytes).str();
  const std::lock_guard<std::mutex> lock(mutex);
  return known.emplace(key, std::move(digest)).first->second;
}

/// The signature neml2-compile embedded in the package metadata (key "neml2_signature").
GraphSignature
embedded_signature(torch::inductor::AOTIModelPackageLoader & loader, const std::string & path)
{
  const auto meta = loader.get_metadata();
  const auto it = meta.find("neml2_signature");
  if (it == meta.end())
    throw FatalError("graph '" + path +
                     "' carries no neml2 signature (not written by this neml2's neml2-compile); "
                     "recompile with neml2-compile");
  return parse_graph_signature(it->second, path + " (neml2_signature)");
}

/// Whether graph argument or result `spec` carries the batch on axis 0.
bool
batched(const TensorSpec & spec)
{
  return !spec.shape.empty() && spec.shape.front() == -1;
}

/// `t` (rows on axis 0) extended to `padded` rows with copies of its row 0 (zeros if empty).
at::Tensor
pad_rows(const at::Tensor & t, int64_t padded)
{
  auto sizes = t.sizes().vec();
  const int64_t rows = sizes.front();
  sizes.front() = padded - rows;
  const auto fill = rows == 0 ? at::zeros(sizes, t.options()) : t.narrow(0, 0, 1).expand(sizes);
  return at::cat({t, fill}, 0);
}
} // namespace

int64_t
GraphSignature::padded_rows(int64_t rows) const
{
  return std::max(min_rows, (rows + row_multiple - 1) / row_multiple * row_multiple);
}

std::string
TensorSpec::str() const
{
  std::ostringstream os;
  os << dtype << " " << device << " [";
  for (std::size_t k = 0; k < shape.size(); ++k)
  {
    const auto d = shape[k];
    os << (k ? ", " : "") << (d == -1 ? std::string("B") : d < 0 ? "*" : std::to_string(d));
  }
  os << "]";
  return os.str();
}

void
verify_graph_file(const std::string & path, const std::string & sha1)
{
  if (!std::filesystem::is_regular_file(path))
    throw FatalError("graph file '" + path +
                     "' listed in metadata.json is missing; the artifact is incomplete, "
                     "re-run neml2-compile");
  if (const auto actual = file_sha1(path); actual != sha1)
    throw FatalError("graph file '" + path + "' has sha1 " + actual + ", metadata.json records " +
                     (sha1.empty() ? std::string("none") : sha1) +
                     ": the file was changed or comes from another compile; recompile with "
                     "neml2-compile");
}

Graph::Graph(const std::string & path, const c10::Device & device, const std::string & sha1)
  : _file(std::filesystem::path(path).filename().string())
{
  verify_graph_file(path, sha1);
  const c10::DeviceIndex index = device.is_cpu() ? -1 : device.index();
  {
    const std::lock_guard<std::mutex> lock(loader_mutex());
    try
    {
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
  try
  {
    _signature = embedded_signature(*_loader, path);
  }
  catch (...)
  {
    const std::lock_guard<std::mutex> lock(loader_mutex());
    _loader.reset();
    throw;
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
  const auto & spec = _signature.inputs;
  int64_t rows = -1;
  std::size_t first = 0; // the first batched argument
  if (inputs.size() == spec.size())
    for (std::size_t i = 0; i < spec.size() && rows < 0; ++i)
      if (batched(spec[i]) && inputs[i].dim() > 0)
        rows = inputs[first = i].size(0);
  const int64_t padded = rows < 0 ? rows : _signature.padded_rows(rows);
  if (padded == rows)
    return _loader->boxed_run(std::move(inputs));
  for (std::size_t i = 0; i < spec.size(); ++i)
    if (batched(spec[i]) && inputs[i].dim() > 0)
    {
      if (inputs[i].size(0) != rows)
        throw FatalError("graph '" + _file + "': argument " + std::to_string(i) + " has " +
                         std::to_string(inputs[i].size(0)) + " rows, argument " +
                         std::to_string(first) + " " + std::to_string(rows));
      inputs[i] = pad_rows(inputs[i], padded);
    }
  auto out = _loader->boxed_run(std::move(inputs));
  for (std::size_t o = 0; o < out.size() && o < _signature.outputs.size(); ++o)
    if (batched(_signature.outputs[o]) && out[o].dim() > 0 && out[o].size(0) == padded)
      out[o] = out[o].narrow(0, 0, rows);
  return out;
}

std::vector<at::Tensor>
Graph::run(std::vector<at::Tensor> && inputs, std::size_t n_outputs) const
{
  auto out = run(std::move(inputs));
  if (out.size() != n_outputs)
    throw FatalError("graph '" + _file + "' returned " + std::to_string(out.size()) +
                     " outputs, metadata.json implies " + std::to_string(n_outputs) +
                     "; the artifact is inconsistent, re-run neml2-compile");
  return out;
}
} // namespace neml2::aoti
