// Which CPU-specific code path the native kernels take (batched LU, sum_of_products).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// A family of native kernels: `scalar` is portable C++ (no CPU-specific instructions), `avx2`
/// and `avx512` use 256- and 512-bit vectors (x86-64, built with GCC).
enum class SimdPath : int
{
  scalar = 0,
  avx2 = 1,
  avx512 = 2,
};

/// "scalar", "avx2" or "avx512".
NEML2_AOTI_EXPORT const char * simd_path_name(SimdPath path) noexcept;

/// The path called `name` (as simd_path_name spells it); FatalError for any other name.
NEML2_AOTI_EXPORT SimdPath parse_simd_path(std::string_view name);

/// Whether this build has kernels for `path` and this CPU runs them (scalar: always).
NEML2_AOTI_EXPORT bool simd_path_supported(SimdPath path) noexcept;

/// Every supported path, scalar first and the widest last.
NEML2_AOTI_EXPORT std::vector<SimdPath> supported_simd_paths();

/// The path the value `value` of NEML2_SIMD selects among `supported` (scalar first, widest
/// last): null, empty (after trimming) or "auto" gives the widest; a path name (any case) gives
/// that path if supported. Anything else is a FatalError naming NEML2_SIMD, the value and the
/// supported paths.
NEML2_AOTI_EXPORT SimdPath resolve_simd_path(const char * value,
                                             const std::vector<SimdPath> & supported);

/// The path the native kernels take in this process: NEML2_SIMD=auto|avx512|avx2|scalar, read
/// once (unset, empty or auto: the widest supported path). A name that is not one of these, or
/// a path this CPU or build lacks, is a FatalError naming the variable, its value and the paths
/// available, thrown by every call (so every kernel call reports it; none silently falls back).
NEML2_AOTI_EXPORT SimdPath simd_path();

/// `path` if supported, else a FatalError naming `who`, the path and the paths available.
NEML2_AOTI_EXPORT SimdPath require_simd_path(SimdPath path, const std::string & who);

/// The path a kernel `who` runs on: the caller's (require_simd_path), else simd_path().
NEML2_AOTI_EXPORT SimdPath kernel_simd_path(std::optional<SimdPath> path, const std::string & who);
} // namespace neml2::aoti
