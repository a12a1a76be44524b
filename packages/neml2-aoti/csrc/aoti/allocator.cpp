#include "neml2/csrc/aoti/allocator.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <c10/core/CPUAllocator.h>

#include "neml2/csrc/aoti/env.h"
#include "free_lists.h"

namespace neml2::aoti
{
namespace
{
std::atomic<bool> large_kept{false};
} // namespace

bool
keep_large_allocations() noexcept
{
  static const bool active = []
  {
#if defined(__GLIBC__)
    constexpr int bytes = static_cast<int>(large_allocation_threshold);
    return mallopt(M_MMAP_THRESHOLD, bytes) == 1 && mallopt(M_TRIM_THRESHOLD, bytes) == 1;
#else
    return false;
#endif
  }();
  large_kept = active;
  return active;
}

bool
large_allocations_kept() noexcept
{
  return large_kept;
}

namespace
{
/// Depth of CallBufferScopes on this thread.
thread_local int scope_depth = 0;

/// Every block carries this header, one alignment unit before the data it hands out (so the data
/// keeps the previous allocator's 64-byte alignment and a DataPtr's context is its data).
struct alignas(64) Header
{
  void * block;      // what the previous allocator returned
  std::size_t bytes; // usable bytes after the header (the size class when cached)
  bool cacheable;    // allocated inside a scope: returned to the cache on free
};

/// `n` rounded up to its size class: a multiple of the largest power of two (at least 64) below
/// n / 8, so at most 1/8 more than n.
std::size_t
size_class(std::size_t n)
{
  std::size_t unit = 64;
  while ((unit << 4) < n)
    unit <<= 1;
  return (n + unit - 1) / unit * unit;
}

/// The allocator in front of the previous CPU allocator (see cache_call_buffers()).
class CachingCPUAllocator final : public c10::Allocator
{
public:
  explicit CachingCPUAllocator(c10::Allocator * previous)
    : _previous(previous)
  {
  }

  c10::DataPtr allocate(std::size_t n) override
  {
    const bool cacheable =
        scope_depth > 0 && n >= cached_buffer_min_bytes && n <= cached_buffer_max_bytes;
    const std::size_t bytes = cacheable ? size_class(n) : n;
    void * data = cacheable ? take(bytes) : nullptr;
    if (data == nullptr)
    {
      void * block = fresh(sizeof(Header) + bytes);
      auto * h = static_cast<Header *>(block);
      *h = Header{block, bytes, cacheable};
      data = h + 1;
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void copy_data(void * dest, const void * src, std::size_t count) const override
  {
    default_copy_data(dest, src, count);
  }

  std::size_t cached_bytes()
  {
    std::lock_guard<std::mutex> lock(_mutex);
    return _free.bytes();
  }

  static CachingCPUAllocator * instance;

private:
  /// A new block from the previous allocator; when that fails, the cached blocks are released
  /// and it is asked once more (memory the cache holds never causes an out-of-memory error).
  void * fresh(std::size_t n)
  {
    try
    {
      return _previous->raw_allocate(n);
    }
    catch (...)
    {
      if (trim() == 0)
        throw;
    }
    return _previous->raw_allocate(n);
  }

  /// Release every cached block; the bytes released.
  std::size_t trim()
  {
    auto free_now = [this](void * data, std::size_t)
    { _previous->raw_deallocate((static_cast<Header *>(data) - 1)->block); };
    std::vector<std::pair<void *, std::size_t>> removed;
    std::size_t released = 0;
    {
      std::lock_guard<std::mutex> lock(_mutex);
      released = _free.bytes();
      removed = _free.remove_beyond(0, free_now);
    }
    for (const auto & [data, bytes] : removed)
      free_now(data, bytes);
    return released;
  }

  /// A freed block of `bytes`, or nullptr.
  void * take(std::size_t bytes)
  {
    std::lock_guard<std::mutex> lock(_mutex);
    return _free.take(bytes);
  }

  /// Keep `data` for reuse while the cache has room; otherwise (or if the free list cannot grow)
  /// false. Called from deleters, so it never throws.
  bool keep(void * data, std::size_t bytes) noexcept
  {
    std::lock_guard<std::mutex> lock(_mutex);
    return _free.bytes() + bytes <= buffer_cache_capacity && _free.put(data, bytes);
  }

  static void release(void * data)
  {
    if (data == nullptr)
      return;
    auto * h = static_cast<Header *>(data) - 1;
    if (h->cacheable && instance->keep(data, h->bytes))
      return;
    instance->_previous->raw_deallocate(h->block);
  }

  c10::Allocator * _previous;
  std::mutex _mutex;
  FreeLists _free;
};

CachingCPUAllocator * CachingCPUAllocator::instance = nullptr;
} // namespace

bool
cache_call_buffers() noexcept
{
  static const bool active = []
  {
    try
    {
      c10::Allocator * previous = c10::GetCPUAllocator();
      // raw_allocate/raw_deallocate need a deleter that frees by the data pointer alone
      if (previous == nullptr || previous->raw_deleter() == nullptr)
        return false;
      // never destroyed: tensors may outlive every Model (and static destruction order)
      CachingCPUAllocator::instance = new CachingCPUAllocator(previous);
      c10::SetCPUAllocator(CachingCPUAllocator::instance, /*priority=*/0);
      return c10::GetCPUAllocator() == CachingCPUAllocator::instance;
    }
    catch (...) // allocation is left to torch
    {
      return false;
    }
  }();
  return active;
}

void
apply_allocation_opt_ins() noexcept
{
  if (env_flag("NEML2_KEEP_LARGE_ALLOCATIONS"))
    keep_large_allocations();
  if (env_flag("NEML2_BUFFER_CACHE"))
    cache_call_buffers();
}

CallBufferScope::CallBufferScope() noexcept
{
  ++scope_depth;
}

CallBufferScope::~CallBufferScope()
{
  --scope_depth;
}

std::size_t
buffer_cache_bytes() noexcept
{
  return CachingCPUAllocator::instance ? CachingCPUAllocator::instance->cached_bytes() : 0;
}
} // namespace neml2::aoti
