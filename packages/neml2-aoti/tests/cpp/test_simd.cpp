// The SIMD path selection: NEML2_SIMD's grammar (resolve_simd_path against any set of supported
// paths, so refusals are tested on every CPU), names, and the process's choice.
#include <cstdlib>
#include <vector>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/simd.h"

using namespace neml2::aoti;

namespace
{
const std::vector<SimdPath> all{SimdPath::scalar, SimdPath::avx2, SimdPath::avx512};
const std::vector<SimdPath> avx2_cpu{SimdPath::scalar, SimdPath::avx2};
const std::vector<SimdPath> plain_cpu{SimdPath::scalar};
} // namespace

TEST_CASE(auto_takes_the_widest)
{
  for (const char * value : {static_cast<const char *>(nullptr), "", "auto", " AUTO "})
  {
    EXPECT(resolve_simd_path(value, all) == SimdPath::avx512);
    EXPECT(resolve_simd_path(value, avx2_cpu) == SimdPath::avx2);
    EXPECT(resolve_simd_path(value, plain_cpu) == SimdPath::scalar);
  }
}

TEST_CASE(named_paths)
{
  EXPECT(resolve_simd_path("scalar", all) == SimdPath::scalar);
  EXPECT(resolve_simd_path("AVX2", all) == SimdPath::avx2);
  EXPECT(resolve_simd_path(" avx512\n", all) == SimdPath::avx512);
  EXPECT(resolve_simd_path("scalar", plain_cpu) == SimdPath::scalar);
  for (auto p : all)
    EXPECT(parse_simd_path(simd_path_name(p)) == p);
  EXPECT_THROWS(FatalError, parse_simd_path("sse2"), "unknown SIMD path 'sse2'");
}

TEST_CASE(a_path_the_cpu_lacks_is_refused)
{
  EXPECT_THROWS(FatalError,
                resolve_simd_path("avx512", avx2_cpu),
                "NEML2_SIMD='avx512': this CPU (or this build of libneml2) has no avx512 kernels; "
                "paths available here: scalar, avx2");
  EXPECT_THROWS(FatalError, resolve_simd_path("avx2", plain_cpu), "paths available here: scalar");
}

TEST_CASE(unknown_names_are_refused)
{
  for (const char * value : {"sse4", "avx", "1", "avx-512"})
    EXPECT_THROWS(FatalError,
                  resolve_simd_path(value, all),
                  "expected one of auto, avx512, avx2, scalar; paths available here: scalar, "
                  "avx2, avx512");
}

TEST_CASE(process_path_follows_the_environment)
{
  // ctest runs each case in its own process; NEML2_SIMD may be set by the caller (nox -s native)
  const auto supported = supported_simd_paths();
  EXPECT(!supported.empty() && supported.front() == SimdPath::scalar);
  EXPECT(simd_path() == resolve_simd_path(std::getenv("NEML2_SIMD"), supported));
  EXPECT(simd_path_supported(simd_path()));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
