// What the native SIMD kernels need from the build: whether x86-64 vector kernels are compiled
// (NEML2_AOTI_X86_SIMD), and exactly sized, aligned scratch for their vectors.
#pragma once

#include <cstddef>
#include <new>

// The vector kernels use GCC's vector extensions (__builtin_shuffle) and per-function targets.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NEML2_AOTI_X86_SIMD 1
#else
#define NEML2_AOTI_X86_SIMD 0
#endif

namespace neml2::aoti
{
/// `bytes` of scratch aligned to `alignment` (a power of two), freed with the object. It is
/// allocated at exactly the requested size, with no hand-computed padding, so an out-of-bounds
/// access is caught by AddressSanitizer (nox -s sanitize) rather than hidden by slack.
class AlignedScratch
{
public:
  AlignedScratch(std::size_t bytes, std::size_t alignment)
    : _alignment(alignment),
      _data(::operator new(bytes, std::align_val_t(alignment)))
  {
  }
  ~AlignedScratch() { ::operator delete(_data, std::align_val_t(_alignment)); }
  AlignedScratch(const AlignedScratch &) = delete;
  AlignedScratch & operator=(const AlignedScratch &) = delete;

  void * data() const noexcept { return _data; }

private:
  std::size_t _alignment;
  void * _data;
};
} // namespace neml2::aoti
