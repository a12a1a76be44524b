// Scoped workspaces for the outputs of the native kernels that py-eager calls in a loop.
#pragma once

#include <cstddef>
#include <memory>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
namespace detail
{
struct WorkspacePool;
}

/// Bytes of freed outputs a Workspace keeps from one scope to the next, by default: at 10^4
/// points a Newton iteration of the Chaboche step frees 46 MiB of them, and the right-hand side
/// of its implicit-function sensitivities is one 50 MiB block.
inline constexpr std::size_t default_retained_workspace_bytes = std::size_t(128) << 20;

/// Memory for the outputs that sum_of_products (and workspace_empty_strided) allocate inside a
/// WorkspaceScope.
///
/// A Newton solve evaluates the same tangent sums every iteration, each into a fresh
/// batch-sized output (at 10^4 points the Chaboche step's 19 x 10^4 x 6 tangents are 9.1 MB
/// each). glibc serves such sizes with fresh pages, or returns them from the top of its heap to
/// the system, so every iteration page-faults its outputs in again. In a workspace an output's
/// memory, once the output is freed, goes back to the workspace and is handed to the next output
/// of the same byte size. A Workspace object (e.g. one per solver) keeps up to `retained_bytes`
/// of such memory while no scope works in it, so the next solve starts warm: it frees the rest
/// when its last outermost scope ends, keeps a block freed between scopes only within that
/// bound, and frees everything when destroyed or release()d. Memory still held by a
/// tensor is freed with that tensor (on any thread). Nothing else is touched: torch's allocator,
/// malloc's settings and every other allocation stay as they were. Thread-safe: several threads
/// may work in one Workspace at once.
class NEML2_AOTI_EXPORT Workspace
{
public:
  explicit Workspace(std::size_t retained_bytes = default_retained_workspace_bytes);
  ~Workspace();
  Workspace(const Workspace &) = delete;
  Workspace & operator=(const Workspace &) = delete;

  /// Bytes of freed outputs kept for reuse.
  std::size_t free_bytes() const noexcept;

  /// Free every kept block now.
  void release() noexcept;

private:
  friend class WorkspaceScope;
  std::shared_ptr<detail::WorkspacePool> _pool;
};

/// While alive, this thread's sum_of_products outputs come from a workspace. The outermost scope
/// on a thread chooses it: `workspace`, or a temporary one freed when the scope ends; inner
/// scopes share it.
class NEML2_AOTI_EXPORT WorkspaceScope
{
public:
  WorkspaceScope();
  explicit WorkspaceScope(Workspace & workspace);
  ~WorkspaceScope();
  WorkspaceScope(const WorkspaceScope &) = delete;
  WorkspaceScope & operator=(const WorkspaceScope &) = delete;

private:
  explicit WorkspaceScope(Workspace * workspace);
  bool _outermost = false;
};

/// Whether a WorkspaceScope is alive on this thread.
NEML2_AOTI_EXPORT bool workspace_active() noexcept;

/// An uninitialized CPU tensor of `sizes` and `strides` (non-overlapping) and `options`' dtype:
/// from this thread's workspace inside a WorkspaceScope, else at::empty_strided.
NEML2_AOTI_EXPORT at::Tensor workspace_empty_strided(at::IntArrayRef sizes,
                                                     at::IntArrayRef strides,
                                                     const at::TensorOptions & options);

/// Bytes of freed outputs the workspace of this thread's scope holds for reuse (0 outside a
/// scope).
NEML2_AOTI_EXPORT std::size_t workspace_free_bytes() noexcept;
} // namespace neml2::aoti
