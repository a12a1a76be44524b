// Large-allocation policy of the process.
#pragma once

#include <cstddef>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// Bytes: allocations below this come from the heap, and up to this much free heap is kept.
inline constexpr std::size_t large_allocation_threshold = std::size_t(1) << 30;

/// Keep batch-sized buffers in the heap. glibc serves every allocation above its mmap threshold
/// (at most 32 MiB by default) with fresh pages and unmaps them on free, so each call that
/// produces a batch-sized output page-faults all of it again; at 10^6 points that costs more
/// than the kernel filling it. This raises the mmap and trim thresholds to
/// large_allocation_threshold, once per process (every Model constructor calls it); the Python
/// package applies the same policy (neml2.tensors._allocator). NEML2_KEEP_LARGE_ALLOCATIONS=0
/// opts out; elsewhere than glibc it does nothing. Returns true when the policy is active.
NEML2_AOTI_EXPORT bool keep_large_allocations() noexcept;
} // namespace neml2::aoti
