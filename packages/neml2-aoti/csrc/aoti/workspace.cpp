// Scoped workspaces for native kernel outputs (see workspace.h).
#include "neml2/csrc/aoti/workspace.h"

#include <mutex>
#include <utility>
#include <vector>

#include <ATen/EmptyTensor.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/from_blob.h>
#include <c10/core/impl/alloc_cpu.h>

#include "free_lists.h"

namespace neml2::aoti
{
namespace detail
{
/// Freed blocks by byte size. Shared by the workspace and every block it handed out, so a block
/// freed after the workspace was closed (or on another thread) still finds it.
struct WorkspacePool
{
  std::mutex mutex;
  FreeLists free;
  bool open = true;
  /// Outermost scopes working in this pool now (on any thread).
  int active = 0;
  /// Bytes of freed blocks kept while no scope is active.
  std::size_t retained = 0;

  /// A freed block of exactly `bytes`, or nullptr.
  void * take(std::size_t bytes)
  {
    std::lock_guard<std::mutex> lock(mutex);
    return free.take(bytes);
  }

  /// Keep `data` for reuse: always while a scope is active, else within the retained bytes;
  /// false (the caller frees it) otherwise, once the pool is closed, or when the free list
  /// cannot grow. Called from deleters, so it never throws.
  bool keep(void * data, std::size_t bytes) noexcept
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!open || (active == 0 && free.bytes() + bytes > retained))
      return false;
    return free.put(data, bytes);
  }

  /// Free kept blocks until at most `keep_bytes` remain (the largest sizes first).
  void trim(std::size_t keep_bytes) noexcept
  {
    auto free_now = [](void * data, std::size_t) { c10::free_cpu(data); };
    std::vector<std::pair<void *, std::size_t>> removed;
    {
      std::lock_guard<std::mutex> lock(mutex);
      removed = free.remove_beyond(keep_bytes, free_now);
    }
    for (const auto & [data, bytes] : removed)
      free_now(data, bytes);
  }

  /// An outermost scope starts working in this pool.
  void enter()
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++active;
  }

  /// An outermost scope ends: when it was the last one, free kept blocks beyond the retained
  /// bytes.
  void leave() noexcept
  {
    std::size_t keep_bytes = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (--active > 0)
        return;
      keep_bytes = retained;
    }
    trim(keep_bytes);
  }

  /// Free every kept block and keep no more: later frees go straight to c10.
  void close() noexcept
  {
    {
      std::lock_guard<std::mutex> lock(mutex);
      open = false;
    }
    trim(0);
  }
};
} // namespace detail

namespace
{
using detail::WorkspacePool;

/// One handed-out block: the DataPtr context of its tensor's storage.
struct Block
{
  std::shared_ptr<WorkspacePool> pool;
  void * data;
  std::size_t bytes;
};

void
release(void * context)
{
  auto * block = static_cast<Block *>(context);
  if (!block->pool->keep(block->data, block->bytes))
    c10::free_cpu(block->data);
  delete block;
}

thread_local int scope_depth = 0;
thread_local std::shared_ptr<WorkspacePool> current_pool;
} // namespace

Workspace::Workspace(std::size_t retained_bytes)
  : _pool(std::make_shared<WorkspacePool>())
{
  _pool->retained = retained_bytes;
}

Workspace::~Workspace()
{
  _pool->close();
}

std::size_t
Workspace::free_bytes() const noexcept
{
  std::lock_guard<std::mutex> lock(_pool->mutex);
  return _pool->free.bytes();
}

void
Workspace::release() noexcept
{
  _pool->trim(0);
}

WorkspaceScope::WorkspaceScope()
  : WorkspaceScope(nullptr)
{
}

WorkspaceScope::WorkspaceScope(Workspace & workspace)
  : WorkspaceScope(&workspace)
{
}

WorkspaceScope::WorkspaceScope(Workspace * workspace)
{
  if (scope_depth == 0)
  {
    auto pool = workspace ? workspace->_pool : std::make_shared<WorkspacePool>();
    pool->enter();
    current_pool = std::move(pool);
    _outermost = true;
  }
  ++scope_depth;
}

WorkspaceScope::~WorkspaceScope()
{
  --scope_depth;
  if (!_outermost)
    return;
  std::exchange(current_pool, nullptr)->leave(); // a temporary pool retains 0 bytes
}

bool
workspace_active() noexcept
{
  return scope_depth > 0;
}

at::Tensor
workspace_empty_strided(at::IntArrayRef sizes,
                        at::IntArrayRef strides,
                        const at::TensorOptions & options)
{
  if (scope_depth == 0)
    return at::empty_strided(sizes, strides, options);
  const std::size_t bytes =
      at::detail::computeStorageNbytes(sizes, strides, options.dtype().itemsize());
  if (bytes == 0)
    return at::empty_strided(sizes, strides, options);
  void * data = current_pool->take(bytes);
  if (data == nullptr)
    data = c10::alloc_cpu(bytes);
  Block * block = nullptr;
  try
  {
    block = new Block{current_pool, data, bytes};
  }
  catch (...)
  {
    c10::free_cpu(data);
    throw;
  }
  // from here the maker owns the block: if make_tensor throws, the maker releases it
  return at::for_blob(data, sizes)
      .strides(strides)
      .context(block, &release)
      .options(options)
      .make_tensor();
}

std::size_t
workspace_free_bytes() noexcept
{
  if (scope_depth == 0)
    return 0;
  std::lock_guard<std::mutex> lock(current_pool->mutex);
  return current_pool->free.bytes();
}
} // namespace neml2::aoti
