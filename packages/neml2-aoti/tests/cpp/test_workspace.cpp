// WorkspaceScope: sum_of_products outputs reuse freed memory inside a scope, outlive it safely
// (also when freed on another thread), and equal the outputs made outside any scope.
#include <algorithm>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/products.h"
#include "neml2/csrc/aoti/simd.h"
#include "neml2/csrc/aoti/workspace.h"

using namespace neml2::aoti;

namespace
{
/// A Newton iteration's tangent sum: batch-innermost (K, B, 6) tangents and (K, B, 1) scalars.
std::vector<ProductTerm>
terms(int64_t B)
{
  const int64_t K = 19;
  auto o = at::TensorOptions().dtype(at::kDouble);
  return {{1.0, at::randn({1, B, 1}, o), at::randn({K, 6, B}, o).transpose(1, 2)},
          {-0.5, at::randn({K, B, 1}, o), at::randn({1, B, 6}, o)},
          {1.0, at::Tensor(), at::randn({K, 1, 6}, o)}};
}

std::size_t
bytes_of(const at::Tensor & t)
{
  return t.storage().nbytes();
}
} // namespace

TEST_CASE(outside_a_scope_nothing_is_kept)
{
  EXPECT(!workspace_active());
  auto t = workspace_empty_strided({3, 4}, {1, 3}, at::TensorOptions().dtype(at::kFloat));
  EXPECT(t.strides() == at::IntArrayRef({1, 3}));
  t.reset();
  EXPECT(workspace_free_bytes() == 0);
}

TEST_CASE(freed_outputs_are_reused_by_size)
{
  at::manual_seed(3);
  const auto ts = terms(500);
  WorkspaceScope scope;
  EXPECT(workspace_active());
  auto out = sum_of_products(ts);
  const void * first = out.data_ptr();
  const std::size_t bytes = bytes_of(out);
  EXPECT(bytes == std::size_t(19 * 500 * 6) * sizeof(double));
  out.reset();
  EXPECT(workspace_free_bytes() == bytes);
  out = sum_of_products(ts);
  EXPECT(out.data_ptr() == first); // the freed block, not new memory
  EXPECT(workspace_free_bytes() == 0);
  auto other = sum_of_products(terms(501)); // another size: new memory
  EXPECT(other.data_ptr() != first);
}

TEST_CASE(geometry_is_the_requested_one)
{
  WorkspaceScope scope;
  auto o = at::TensorOptions().dtype(at::kDouble);
  auto t = workspace_empty_strided({19, 7, 6}, {7, 1, 133}, o);
  EXPECT(t.sizes() == at::IntArrayRef({19, 7, 6}));
  EXPECT(t.strides() == at::IntArrayRef({7, 1, 133}));
  EXPECT(bytes_of(t) == std::size_t(19 * 7 * 6) * sizeof(double));
  t.fill_(2.0); // every element writable (ASan: inside the block)
  EXPECT(t.sum().item<double>() == 2.0 * 19 * 7 * 6);
}

TEST_CASE(same_values_in_and_out_of_a_scope)
{
  at::manual_seed(4);
  const auto ts = terms(257);
  for (auto path : supported_simd_paths())
  {
    const auto plain = sum_of_products(ts, path);
    WorkspaceScope scope;
    for (int i = 0; i < 3; ++i) // fresh, then reused memory
    {
      const auto pooled = sum_of_products(ts, path);
      EXPECT(pooled.strides() == plain.strides());
      EXPECT(at::equal(pooled, plain)); // one kernel: the same rounding
    }
  }
}

TEST_CASE(nested_scopes_share_the_outer_workspace)
{
  at::manual_seed(5);
  const auto ts = terms(100);
  WorkspaceScope outer;
  {
    WorkspaceScope inner;
    sum_of_products(ts); // freed at once: kept
  }
  EXPECT(workspace_free_bytes() == std::size_t(19 * 100 * 6) * sizeof(double));
}

TEST_CASE(outputs_outlive_their_scope)
{
  at::manual_seed(6);
  const auto ts = terms(300);
  const auto expected = sum_of_products(ts);
  at::Tensor kept, moved;
  {
    WorkspaceScope scope;
    kept = sum_of_products(ts);
    moved = sum_of_products(ts);
    sum_of_products(ts); // freed inside: released at the scope's end
  }
  EXPECT(!workspace_active());
  EXPECT(workspace_free_bytes() == 0);
  EXPECT(at::equal(kept, expected));
  // freed on another thread after the scope ended, and one while another scope is alive
  std::thread([t = std::move(moved)]() mutable { t.reset(); }).join();
  WorkspaceScope later;
  std::thread([t = std::move(kept)]() mutable { t.reset(); }).join();
  EXPECT(workspace_free_bytes() == 0); // never returned into a later scope's workspace
}

TEST_CASE(threads_have_their_own_workspaces)
{
  at::manual_seed(7);
  const auto ts = terms(200);
  const auto expected = sum_of_products(ts);
  WorkspaceScope scope;
  auto mine = sum_of_products(ts);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int k = 0; k < 4; ++k)
    threads.emplace_back(
        [&, k]
        {
          EXPECT(!workspace_active());
          WorkspaceScope theirs;
          for (int i = 0; i < 5; ++i)
            ok[k] += at::equal(sum_of_products(ts), expected);
        });
  for (auto & t : threads)
    t.join();
  for (int k = 0; k < 4; ++k)
    EXPECT(ok[k] == 5);
  mine.reset();
  EXPECT(workspace_free_bytes() == bytes_of(expected));
}

TEST_CASE(a_workspace_keeps_its_retained_bytes_between_scopes)
{
  at::manual_seed(8);
  const auto ts = terms(400);
  const std::size_t one = std::size_t(19 * 400 * 6) * sizeof(double);
  Workspace ws(2 * one + one / 2); // room for two outputs of this size
  std::vector<const void *> earlier;
  {
    WorkspaceScope scope(ws);
    auto a = sum_of_products(ts), b = sum_of_products(ts), c = sum_of_products(ts);
    earlier = {a.data_ptr(), b.data_ptr(), c.data_ptr()};
  } // a, b, c freed into the workspace, which then trims to its retained bytes
  EXPECT(ws.free_bytes() == 2 * one);
  {
    WorkspaceScope scope(ws);
    auto a = sum_of_products(ts), b = sum_of_products(ts);
    EXPECT(ws.free_bytes() == 0); // both served warm
    for (const void * p : {a.data_ptr(), b.data_ptr()})
      EXPECT(std::find(earlier.begin(), earlier.end(), p) != earlier.end());
    WorkspaceScope nested; // an inner scope keeps the outer workspace
    EXPECT(workspace_free_bytes() == 0);
  }
  ws.release();
  EXPECT(ws.free_bytes() == 0);
}

TEST_CASE(between_scopes_freed_outputs_are_kept_within_the_retained_bytes)
{
  at::manual_seed(11);
  const auto ts = terms(120);
  const std::size_t one = std::size_t(19 * 120 * 6) * sizeof(double);
  Workspace ws(one + one / 2);
  at::Tensor a, b;
  {
    WorkspaceScope scope(ws);
    a = sum_of_products(ts);
    b = sum_of_products(ts);
  }
  EXPECT(ws.free_bytes() == 0);
  a.reset();
  EXPECT(ws.free_bytes() == one); // kept: within the retained bytes
  b.reset();
  EXPECT(ws.free_bytes() == one); // freed: beyond them
}

TEST_CASE(outputs_outlive_their_workspace)
{
  at::manual_seed(9);
  const auto ts = terms(100);
  const auto expected = sum_of_products(ts);
  at::Tensor kept;
  {
    Workspace ws;
    WorkspaceScope scope(ws);
    kept = sum_of_products(ts);
  } // the workspace is gone (scope first, then the workspace): kept is freed to c10 later
  EXPECT(at::equal(kept, expected));
  std::thread([t = std::move(kept)]() mutable { t.reset(); }).join();
}

TEST_CASE(threads_share_one_workspace)
{
  at::manual_seed(10);
  const auto ts = terms(150);
  const auto expected = sum_of_products(ts);
  Workspace ws;
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back(
        [&, k]
        {
          for (int i = 0; i < 20; ++i)
          {
            WorkspaceScope scope(ws);
            ok[k] += at::equal(sum_of_products(ts), expected);
          }
        });
  for (auto & t : threads)
    t.join();
  for (int k = 0; k < 4; ++k)
    EXPECT(ok[k] == 20);
  EXPECT(ws.free_bytes() > 0 && ws.free_bytes() <= 4 * bytes_of(expected));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
