// Freed memory blocks kept for reuse by byte size (private to libneml2.so): the one free-list
// rule of the buffer cache (allocator.cpp) and of the output workspaces (workspace.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace neml2::aoti
{
/// Blocks by exact byte size, last kept first out, and their total. Not synchronized: the owner
/// holds its lock around every call.
class FreeLists
{
public:
  /// A kept block of exactly `bytes` (removed from the lists), or nullptr.
  void * take(std::size_t bytes)
  {
    auto it = _lists.find(bytes);
    if (it == _lists.end() || it->second.empty())
      return nullptr;
    void * data = it->second.back();
    it->second.pop_back();
    _bytes -= bytes;
    return data;
  }

  /// Keep `data` of `bytes`; false (nothing kept) when the lists cannot grow. Never throws.
  bool put(void * data, std::size_t bytes) noexcept
  {
    try
    {
      _lists[bytes].push_back(data);
    }
    catch (...)
    {
      return false;
    }
    _bytes += bytes;
    return true;
  }

  /// Bytes of the kept blocks.
  std::size_t bytes() const noexcept { return _bytes; }

  /// Remove kept blocks, the largest sizes first, until at most `keep_bytes` remain; returns
  /// them as (data, bytes) for the owner to free outside its lock (when even that list cannot be
  /// made, every block is removed and passed to `free_now` instead).
  template <typename FreeNow>
  std::vector<std::pair<void *, std::size_t>> remove_beyond(std::size_t keep_bytes,
                                                            FreeNow && free_now) noexcept
  {
    std::vector<std::pair<void *, std::size_t>> removed;
    if (_bytes <= keep_bytes)
      return removed;
    try
    {
      std::vector<std::size_t> sizes;
      for (const auto & [bytes, list] : _lists)
        if (!list.empty())
          sizes.push_back(bytes);
      std::sort(sizes.rbegin(), sizes.rend());
      for (auto bytes : sizes)
        for (auto & list = _lists[bytes]; !list.empty() && _bytes > keep_bytes; _bytes -= bytes)
        {
          removed.emplace_back(list.back(), bytes);
          list.pop_back();
        }
    }
    catch (...) // no room to list them: every block is freed now
    {
      for (const auto & [data, bytes] : removed)
        free_now(data, bytes);
      removed.clear();
      for (const auto & [bytes, list] : _lists)
        for (void * data : list)
          free_now(data, bytes);
      _lists.clear();
      _bytes = 0;
    }
    return removed;
  }

private:
  std::unordered_map<std::size_t, std::vector<void *>> _lists;
  std::size_t _bytes = 0;
};
} // namespace neml2::aoti
