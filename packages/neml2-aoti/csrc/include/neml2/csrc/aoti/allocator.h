// Allocation policies of the process, both opt-in: large allocations kept in the heap, and the
// buffers of runtime calls reused through a cache. A library must not change its host's
// allocator behaviour unasked, so neither is applied unless the host calls it, or sets its
// environment variable to a truthy value before the first Model is constructed
// (apply_allocation_opt_ins).
#pragma once

#include <cstddef>
#include <cstdint>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// Bytes: allocations below this come from the heap, and up to this much free heap is kept.
inline constexpr std::size_t large_allocation_threshold = std::size_t(1) << 30;

/// Keep batch-sized buffers in the heap. glibc serves every allocation above its mmap threshold
/// (at most 32 MiB by default) with fresh pages and unmaps them on free, so each call that
/// produces a batch-sized output page-faults all of it again; at 10^6 points that costs more
/// than the kernel filling it. This raises the mmap and trim thresholds to
/// large_allocation_threshold for the whole process, once (the Python package applies the same
/// policy, neml2.tensors._allocator); elsewhere than glibc it does nothing. Opt-in: called by the
/// host, or by the Model constructor when NEML2_KEEP_LARGE_ALLOCATIONS is truthy. The cost: up
/// to large_allocation_threshold of freed memory stays with the process. Returns true when the
/// policy is active.
NEML2_AOTI_EXPORT bool keep_large_allocations() noexcept;

/// Whether keep_large_allocations() has been applied (and is active) in this process.
NEML2_AOTI_EXPORT bool large_allocations_kept() noexcept;

/// Bytes: without the large-allocation policy, the automatic row block of an implicit segment
/// keeps one block's Newton matrix within this, half of glibc's largest dynamic mmap threshold
/// (32 MiB). Up to that threshold a freed buffer raises it, and the next buffer of its size
/// comes from the heap; but glibc also returns the heap's free top to the system once it
/// reaches twice the threshold, and one whole-batch matrix per Newton iteration, with the
/// iteration's other buffers between two of them, reached it every other iteration (Chaboche
/// step at 10^4 points, AVX2 path: 28.9 MB matrices in one block, 160-174 ms; two blocks of
/// 14.4 MB, 93-133 ms).
inline constexpr int64_t unkept_block_matrix_bytes = int64_t(16) << 20;

/// Smallest and largest allocations (bytes) a CallBufferScope serves from the buffer cache.
inline constexpr std::size_t cached_buffer_min_bytes = std::size_t(1) << 10;
inline constexpr std::size_t cached_buffer_max_bytes = std::size_t(1) << 28;
/// At most this many bytes of freed buffers are kept for reuse; beyond it they are released.
inline constexpr std::size_t buffer_cache_capacity = std::size_t(1) << 30;

/// Reuse the buffers of runtime calls. A compiled graph allocates every intermediate buffer per
/// call (about 80 for the Chaboche Jacobian) and the Newton loop a few more per iteration, the
/// same sizes call after call; through c10's 64-byte-aligned malloc each costs a heap search and
/// a split, about a third of a small call's fixed cost. This installs, once per process (opt-in:
/// called by the host, or by the Model constructor when NEML2_BUFFER_CACHE is truthy), a CPU
/// allocator in front of the current one: on threads inside a
/// CallBufferScope, allocations of cached_buffer_min_bytes to cached_buffer_max_bytes are taken
/// from (and on free returned to) a process-wide cache of freed buffers, by size class (sizes
/// rounded up by at most 1/8); every other allocation passes through to the previous allocator.
/// Every block, cached or not, carries a 64-byte header in front of its data (its size and
/// whether it returns to the cache), so one deleter frees any of them. When the previous
/// allocator fails, the cached buffers are released and the allocation is retried once, so the
/// cache never causes an out-of-memory error. Install it before the process frees, through
/// c10::GetCPUAllocator()->raw_deallocate, memory it took through raw_allocate earlier (every
/// block the cache frees must carry its header). Returns true when the cache is installed.
NEML2_AOTI_EXPORT bool cache_call_buffers() noexcept;

/// The opt-ins the environment asks for: keep_large_allocations() when
/// NEML2_KEEP_LARGE_ALLOCATIONS is truthy, cache_call_buffers() when NEML2_BUFFER_CACHE is (see
/// env_truthy); nothing otherwise. Every Model constructor calls it.
NEML2_AOTI_EXPORT void apply_allocation_opt_ins() noexcept;

/// While alive, this thread's CPU allocations in the cached size range use the buffer cache (when
/// cache_call_buffers() installed it). Scopes nest.
class NEML2_AOTI_EXPORT CallBufferScope
{
public:
  CallBufferScope() noexcept;
  ~CallBufferScope();
  CallBufferScope(const CallBufferScope &) = delete;
  CallBufferScope & operator=(const CallBufferScope &) = delete;
};

/// Bytes of freed buffers the cache currently holds for reuse.
NEML2_AOTI_EXPORT std::size_t buffer_cache_bytes() noexcept;
} // namespace neml2::aoti
