// batched_dense_solve against at::linalg_solve: pivoting, several right-hand sides, both dtypes,
// the fallback sizes, singular elements, and bad inputs; on every SIMD path this CPU supports,
// each bit-identical to the scalar path.
#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/linalg.h"
#include "neml2/csrc/aoti/simd.h"

using namespace neml2::aoti;

namespace
{
/// Well-conditioned (diagonally dominated) random systems whose rows are shuffled, so the
/// largest entry of the first column is rarely on the diagonal and pivoting is required.
at::Tensor
pivoting_matrices(int64_t B, int64_t n, at::ScalarType dtype)
{
  auto A = at::randn({B, n, n}, at::TensorOptions().dtype(at::kDouble)) +
           2.0 * n * at::eye(n, at::TensorOptions().dtype(at::kDouble));
  auto perm = at::randperm(n, at::TensorOptions().dtype(at::kLong));
  return A.index_select(1, perm).to(dtype);
}

double
max_err(const at::Tensor & a, const at::Tensor & b)
{
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

void
compare(int64_t n, int64_t k, at::ScalarType dtype, double tol)
{
  at::manual_seed(n * 100 + k);
  const int64_t B = 37;
  auto A = pivoting_matrices(B, n, dtype);
  auto b = k == 0 ? at::randn({B, n}, A.options()) : at::randn({B, n, k}, A.options());
  auto rhs = k == 0 ? b.unsqueeze(-1) : b;
  auto ref = at::linalg_solve(A.to(at::kDouble), rhs.to(at::kDouble));
  const auto scalar = batched_dense_solve(A, b, SimdPath::scalar);
  for (auto path : supported_simd_paths())
  {
    auto x = batched_dense_solve(A, b, path);
    EXPECT(x.sizes() == b.sizes());
    EXPECT(x.scalar_type() == dtype);
    EXPECT(max_err(k == 0 ? x.unsqueeze(-1) : x, ref) < tol);
    EXPECT(at::equal(x, scalar)); // the lanes round exactly as the scalar kernel does
  }
}
} // namespace

TEST_CASE(matches_linalg_solve_double)
{
  for (int64_t n : {1, 2, 3, 6, 7, 12, 19, 24, 25, 32, 40})
    for (int64_t k : {0, 1, 4})
      compare(n, k, at::kDouble, 1e-12);
}

TEST_CASE(matches_linalg_solve_float)
{
  for (int64_t n : {1, 5, 19, 30})
    for (int64_t k : {0, 3})
      compare(n, k, at::kFloat, 1e-5);
}

TEST_CASE(needs_pivoting)
{
  // [[0, 1], [1, 0]] has a zero leading entry: unpivoted LU would divide by zero.
  auto A = at::tensor({0.0, 1.0, 1.0, 0.0, 1e-20, 1.0, 1.0, 1.0}, at::kDouble).reshape({2, 2, 2});
  auto b = at::tensor({3.0, 5.0, 1.0, 2.0}, at::kDouble).reshape({2, 2});
  auto x = batched_dense_solve(A, b);
  EXPECT(max_err(x[0], at::tensor({5.0, 3.0}, at::kDouble)) == 0.0);
  // Second system: x1 + x2 = 2, 1e-20 x1 + x2 = 1  ->  x1 = 1 / (1 - 1e-20), x2 ~ 1.
  EXPECT(max_err(x[1], at::tensor({1.0, 1.0}, at::kDouble)) < 1e-15);
}

TEST_CASE(singular_element_is_nonfinite_only_there)
{
  at::manual_seed(3);
  auto A = pivoting_matrices(5, 19, at::kDouble);
  A[1].select(0, 4).copy_(A[1].select(0, 7)); // duplicate row: exactly singular
  A[3].select(1, 0).zero_();                  // zero column
  auto b = at::randn({5, 19, 2}, A.options());
  auto x = batched_dense_solve(A, b);
  auto finite = at::isfinite(x).all(-1).all(-1);
  EXPECT(finite[0].item<bool>() && finite[2].item<bool>() && finite[4].item<bool>());
  EXPECT(!finite[1].item<bool>() && !finite[3].item<bool>());
  auto keep = at::tensor({0, 2, 4}, at::kLong);
  auto ref = at::linalg_solve(A.index_select(0, keep), b.index_select(0, keep));
  EXPECT(max_err(x.index_select(0, keep), ref) < 1e-12);
}

TEST_CASE(noncontiguous_and_empty)
{
  at::manual_seed(4);
  auto A = pivoting_matrices(6, 7, at::kDouble).transpose(1, 2); // still well conditioned
  auto b = at::randn({6, 3, 7}, A.options()).transpose(1, 2);
  EXPECT(!A.is_contiguous() && !b.is_contiguous());
  EXPECT(max_err(batched_dense_solve(A, b), at::linalg_solve(A, b)) < 1e-12);
  auto A0 = at::zeros({0, 4, 4}, A.options());
  auto b0 = at::zeros({0, 4}, A.options());
  EXPECT(batched_dense_solve(A0, b0).sizes() == at::IntArrayRef({0, 4}));
}

TEST_CASE(every_batch_size_on_every_path)
{
  // batches around the lane widths (4, 8, 16) and the kernels' scratch sizes: the lane groups,
  // the scalar tail and their scratch are sized exactly (nox -s sanitize sees any overrun)
  for (auto dtype : {at::kDouble, at::kFloat})
    for (int64_t n : {2, 7, 19, 25})
      for (int64_t B : {1, 3, 4, 5, 8, 9, 16, 17, 33})
        for (int64_t k : {1, 5, 9})
        {
          at::manual_seed(B * 1000 + n * 10 + k);
          auto A = pivoting_matrices(B, n, dtype);
          auto b = at::randn({B, n, k}, A.options());
          const auto scalar = batched_dense_solve(A, b, SimdPath::scalar);
          auto ref = at::linalg_solve(A.to(at::kDouble), b.to(at::kDouble));
          EXPECT(max_err(scalar, ref) < (dtype == at::kDouble ? 1e-12 : 1e-4));
          for (auto path : supported_simd_paths())
            EXPECT(at::equal(batched_dense_solve(A, b, path), scalar));
        }
}

TEST_CASE(unsupported_path_is_refused)
{
  auto A = at::eye(3, at::kDouble).expand({4, 3, 3}).contiguous();
  auto b = at::ones({4, 3}, at::kDouble);
  for (auto path : {SimdPath::avx2, SimdPath::avx512})
    if (!simd_path_supported(path))
      EXPECT_THROWS(FatalError, batched_dense_solve(A, b, path), "not available on this CPU");
}

TEST_CASE(bad_inputs)
{
  auto A = at::eye(3, at::kDouble).expand({2, 3, 3});
  EXPECT_THROWS(FatalError, batched_dense_solve(A[0], at::ones({3}, at::kDouble)), "(B, n, n)");
  EXPECT_THROWS(FatalError, batched_dense_solve(A, at::ones({2, 4}, at::kDouble)), "(B, n)");
  EXPECT_THROWS(FatalError, batched_dense_solve(A, at::ones({3, 3}, at::kDouble)), "(B, n)");
  EXPECT_THROWS(FatalError, batched_dense_solve(A, at::ones({2, 3}, at::kFloat)), "dtype");
  EXPECT_THROWS(FatalError, batched_dense_solve(A, at::Tensor()), "undefined");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
