// The buffer cache of runtime calls (opt-in: cache_call_buffers / CallBufferScope): inside a
// scope, a freed buffer is reused by the next allocation of its size class; outside, allocations
// pass through; data stays 64-byte aligned and holds what was written; a failed allocation releases
// the cache before its retry; threads share it safely.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "check.h"
#include "neml2/csrc/aoti/allocator.h"

using namespace neml2::aoti;

namespace
{
/// A float64 tensor of n elements (n * 8 bytes).
at::Tensor
doubles(int64_t n)
{
  return at::empty({n}, at::TensorOptions().dtype(at::kDouble));
}

bool
aligned64(const void * p)
{
  return reinterpret_cast<std::uintptr_t>(p) % 64 == 0;
}

void
require_cache()
{
  if (!cache_call_buffers())
    throw check::Skip("the buffer cache cannot be installed (a foreign CPU allocator)");
}
} // namespace

TEST_CASE(freed_buffers_are_reused_inside_a_scope)
{
  require_cache();
  CallBufferScope scope;
  auto a = doubles(3000); // 24000 bytes: size class 24576
  const void * p = a.data_ptr();
  EXPECT(aligned64(p));
  const auto held = buffer_cache_bytes();
  a.reset();
  EXPECT(buffer_cache_bytes() == held + 24576);
  auto b = doubles(3050); // 24400 bytes: the same size class
  EXPECT(b.data_ptr() == p);
  EXPECT(buffer_cache_bytes() == held);
  b.fill_(2.5);
  EXPECT(b.sum().item<double>() == 2.5 * 3050);
}

TEST_CASE(size_classes_round_up_by_at_most_an_eighth)
{
  require_cache();
  CallBufferScope scope;
  for (const int64_t bytes : {1024, 1100, 4096, 5000, 65536, 70000, 1 << 20, (1 << 20) + 8})
  {
    const auto held = buffer_cache_bytes();
    doubles(bytes / 8).reset();
    const auto kept = buffer_cache_bytes() - held;
    EXPECT(kept >= static_cast<std::size_t>(bytes / 8 * 8));
    EXPECT(kept <= static_cast<std::size_t>(bytes / 8 * 8) * 9 / 8);
    EXPECT(kept % 64 == 0);
  }
}

TEST_CASE(allocations_outside_a_scope_or_size_range_pass_through)
{
  require_cache();
  const auto held = buffer_cache_bytes();
  doubles(3000).reset(); // no scope
  EXPECT(buffer_cache_bytes() == held);
  {
    CallBufferScope scope;
    doubles(16).reset(); // 128 bytes: below cached_buffer_min_bytes
    EXPECT(buffer_cache_bytes() == held);
    const auto big = static_cast<int64_t>(cached_buffer_max_bytes / 8 + 8);
    auto t = doubles(big); // above cached_buffer_max_bytes
    EXPECT(aligned64(t.data_ptr()));
    t.reset();
    EXPECT(buffer_cache_bytes() == held);
  }
}

TEST_CASE(buffers_allocated_in_a_scope_return_to_the_cache_when_freed_outside)
{
  require_cache();
  at::Tensor kept;
  {
    CallBufferScope scope;
    kept = doubles(5000);
  }
  const auto held = buffer_cache_bytes();
  const void * p = kept.data_ptr();
  kept.reset();
  EXPECT(buffer_cache_bytes() > held);
  CallBufferScope scope;
  EXPECT(doubles(5000).data_ptr() == p);
}

TEST_CASE(a_failed_allocation_releases_the_cache_first)
{
  require_cache();
  CallBufferScope scope;
  doubles(4000).reset();
  EXPECT(buffer_cache_bytes() > 0);
  bool threw = false;
  try
  {
    doubles(int64_t(1) << 50); // 8 PiB: refused by the system allocator
  }
  catch (const c10::Error &)
  {
    threw = true;
  }
  EXPECT(threw);
  EXPECT(buffer_cache_bytes() == 0); // released before the retry
  auto t = doubles(4000);            // and the allocator still works
  t.fill_(1.0);
  EXPECT(t.sum().item<double>() == 4000.0);
}

TEST_CASE(raw_allocations_round_trip)
{
  require_cache();
  auto * alloc = c10::GetCPUAllocator();
  EXPECT(alloc->raw_deleter() != nullptr);
  for (const bool in_scope : {false, true})
  {
    std::unique_ptr<CallBufferScope> scope(in_scope ? new CallBufferScope : nullptr);
    void * p = alloc->raw_allocate(4096);
    EXPECT(aligned64(p));
    static_cast<char *>(p)[4095] = 1;
    alloc->raw_deallocate(p);
  }
}

TEST_CASE(threads_share_the_cache)
{
  require_cache();
  constexpr int n_threads = 4, rounds = 200;
  std::vector<double> sums(n_threads, 0.0);
  std::vector<std::thread> pool;
  for (int t = 0; t < n_threads; ++t)
    pool.emplace_back(
        [t, &sums]
        {
          CallBufferScope scope;
          for (int r = 0; r < rounds; ++r)
          {
            auto x = doubles(1000 + 100 * t);
            x.fill_(static_cast<double>(t + 1));
            sums[t] += x.sum().item<double>();
          }
        });
  for (auto & th : pool)
    th.join();
  for (int t = 0; t < n_threads; ++t)
    EXPECT(sums[t] == static_cast<double>(rounds) * (1000 + 100 * t) * (t + 1));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
