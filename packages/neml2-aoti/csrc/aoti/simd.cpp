#include "neml2/csrc/aoti/simd.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "neml2/csrc/aoti/Exception.h"
#include "simd_support.h"

namespace neml2::aoti
{
namespace
{
constexpr SimdPath all_paths[] = {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512};

std::string
names(const std::vector<SimdPath> & paths)
{
  std::string s;
  for (auto p : paths)
    s += std::string(s.empty() ? "" : ", ") + simd_path_name(p);
  return s;
}
} // namespace

const char *
simd_path_name(SimdPath path) noexcept
{
  switch (path)
  {
    case SimdPath::avx2:
      return "avx2";
    case SimdPath::avx512:
      return "avx512";
    case SimdPath::scalar:
    default:
      return "scalar";
  }
}

SimdPath
parse_simd_path(std::string_view name)
{
  for (auto p : all_paths)
    if (name == simd_path_name(p))
      return p;
  throw FatalError("unknown SIMD path '" + std::string(name) +
                   "': expected one of avx512, avx2, scalar");
}

bool
simd_path_supported(SimdPath path) noexcept
{
  switch (path)
  {
    case SimdPath::scalar:
      return true;
#if NEML2_AOTI_X86_SIMD
    case SimdPath::avx2:
      return __builtin_cpu_supports("avx2");
    case SimdPath::avx512:
      return __builtin_cpu_supports("avx512f");
#endif
    default:
      return false;
  }
}

std::vector<SimdPath>
supported_simd_paths()
{
  std::vector<SimdPath> paths;
  for (auto p : all_paths)
    if (simd_path_supported(p))
      paths.push_back(p);
  return paths;
}

SimdPath
resolve_simd_path(const char * value, const std::vector<SimdPath> & supported)
{
  const std::string raw = value ? value : "";
  std::string name;
  for (unsigned char c : raw)
    if (!std::isspace(c))
      name += static_cast<char>(std::tolower(c));
  if (name.empty() || name == "auto")
    return supported.empty() ? SimdPath::scalar : supported.back();
  const std::string where = "NEML2_SIMD='" + raw + "': ";
  for (auto p : all_paths)
    if (name == simd_path_name(p))
    {
      if (std::find(supported.begin(), supported.end(), p) != supported.end())
        return p;
      throw FatalError(where + "this CPU (or this build of libneml2) has no " + simd_path_name(p) +
                       " kernels; paths available here: " + names(supported) + " (or auto)");
    }
  throw FatalError(where + "expected one of auto, avx512, avx2, scalar; paths available here: " +
                   names(supported));
}

SimdPath
simd_path()
{
  // the variable is read once; a bad value is reported by every call (none falls back silently)
  static const auto chosen = []() -> std::pair<SimdPath, std::string>
  {
    try
    {
      return {resolve_simd_path(std::getenv("NEML2_SIMD"), supported_simd_paths()), ""};
    }
    catch (const FatalError & e)
    {
      return {SimdPath::scalar, e.what()};
    }
  }();
  if (!chosen.second.empty())
    throw FatalError(chosen.second);
  return chosen.first;
}

SimdPath
require_simd_path(SimdPath path, const std::string & who)
{
  if (!simd_path_supported(path))
    throw FatalError(who + ": the " + simd_path_name(path) +
                     " path is not available on this CPU (or in this build of libneml2); paths "
                     "available here: " +
                     names(supported_simd_paths()));
  return path;
}

SimdPath
kernel_simd_path(std::optional<SimdPath> path, const std::string & who)
{
  return path ? require_simd_path(*path, who) : simd_path();
}
} // namespace neml2::aoti
