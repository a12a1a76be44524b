#include "neml2/csrc/aoti/allocator.h"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "neml2/csrc/aoti/env.h"

namespace neml2::aoti
{
bool
keep_large_allocations() noexcept
{
  static const bool active = []
  {
    const char * opt = std::getenv("NEML2_KEEP_LARGE_ALLOCATIONS");
    if (opt != nullptr && !env_truthy(opt))
      return false;
#if defined(__GLIBC__)
    constexpr int bytes = static_cast<int>(large_allocation_threshold);
    return mallopt(M_MMAP_THRESHOLD, bytes) == 1 && mallopt(M_TRIM_THRESHOLD, bytes) == 1;
#else
    return false;
#endif
  }();
  return active;
}
} // namespace neml2::aoti
