// Test helpers for the Model tests: the artifact / reference locations (environment) and the
// reader of make_references.py's binary tensor files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <ATen/ATen.h>

#include "check.h"

namespace reference
{
using Skip = check::Skip;

inline std::filesystem::path
env_dir(const char * var)
{
  const char * v = std::getenv(var);
  if (!v || !*v)
    throw Skip(std::string(var) + " is not set");
  return v;
}

/// <NEML2_TEST_ARTIFACTS>/<scenario>/<name>/ (the folder holding metadata.json).
inline std::filesystem::path
artifact(const std::string & scenario)
{
  const auto dir = env_dir("NEML2_TEST_ARTIFACTS") / scenario;
  std::error_code ec;
  for (const auto & e : std::filesystem::directory_iterator(dir, ec))
    if (std::filesystem::is_regular_file(e.path() / "metadata.json"))
      return e.path();
  throw Skip("no artifact for scenario '" + scenario + "' under " + dir.string());
}

/// Tensors of <NEML2_TEST_REFERENCES>/<scenario>.ref.
inline std::map<std::string, at::Tensor>
load(const std::string & scenario)
{
  const auto path = env_dir("NEML2_TEST_REFERENCES") / (scenario + ".ref");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Skip("no reference file " + path.string());
  char magic[8];
  in.read(magic, 8);
  if (std::string(magic, 8) != "NML2REF1")
    throw std::runtime_error(path.string() + ": bad magic");
  auto u32 = [&]
  {
    uint32_t v = 0;
    in.read(reinterpret_cast<char *>(&v), 4);
    return v;
  };
  std::map<std::string, at::Tensor> out;
  const auto count = u32();
  for (uint32_t k = 0; k < count; ++k)
  {
    std::string key(u32(), '\0');
    in.read(key.data(), std::streamsize(key.size()));
    std::vector<int64_t> shape(u32());
    in.read(reinterpret_cast<char *>(shape.data()), std::streamsize(8 * shape.size()));
    auto t = at::empty(shape, at::kDouble);
    in.read(reinterpret_cast<char *>(t.data_ptr<double>()), std::streamsize(8 * t.numel()));
    if (!in)
      throw std::runtime_error(path.string() + ": truncated");
    out.emplace(std::move(key), t);
  }
  return out;
}

/// Entries of `refs` under "<prefix>/", keyed by the rest of the key.
inline std::map<std::string, at::Tensor>
group(const std::map<std::string, at::Tensor> & refs, const std::string & prefix)
{
  std::map<std::string, at::Tensor> out;
  for (const auto & [k, v] : refs)
    if (k.rfind(prefix + "/", 0) == 0)
      out.emplace(k.substr(prefix.size() + 1), v);
  return out;
}

/// A private copy of a scenario's artifact (root = the copy's metadata folder), removed on
/// destruction; the metadata can be edited to build broken or modified artifacts.
struct ArtifactCopy
{
  std::filesystem::path root;
  explicit ArtifactCopy(const std::string & scenario)
  {
    static int counter = 0;
    const auto src = artifact(scenario);
    root = std::filesystem::temp_directory_path() /
           ("neml2_aoti_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(root);
    std::filesystem::copy(src, root / src.filename(), std::filesystem::copy_options::recursive);
    root /= src.filename();
  }
  ~ArtifactCopy() { std::filesystem::remove_all(root.parent_path()); }
  ArtifactCopy(const ArtifactCopy &) = delete;
  ArtifactCopy & operator=(const ArtifactCopy &) = delete;

  std::string read_metadata() const
  {
    std::ifstream in(root / "metadata.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write_metadata(const std::string & text) const
  {
    std::ofstream(root / "metadata.json") << text;
  }
  /// Replace the first occurrence of `from` in metadata.json (fails the test when absent).
  void replace(const std::string & from, const std::string & to) const
  {
    auto text = read_metadata();
    const auto pos = text.find(from);
    if (pos == std::string::npos)
      check::fail(__FILE__, __LINE__, "metadata lacks '" + from + "'");
    write_metadata(text.replace(pos, from.size(), to));
  }
};

/// max|a - b| <= rtol * max(max|b|, 1e-300), with equal shapes.
inline bool
close(const at::Tensor & a, const at::Tensor & b, double rtol, std::string * why = nullptr)
{
  if (a.sizes() != b.sizes())
  {
    if (why)
      *why = "shape mismatch";
    return false;
  }
  const double scale = std::max(b.abs().max().item<double>(), 1e-300);
  const double err = (a - b).abs().max().item<double>();
  if (why)
    *why = "max|diff| = " + std::to_string(err) + ", scale = " + std::to_string(scale);
  return err <= rtol * scale;
}
} // namespace reference
