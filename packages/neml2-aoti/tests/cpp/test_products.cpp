// sum_of_products against the same sum written with ATen ops: broadcasts, memory orders, both
// dtypes, and bad terms, on every SIMD path this CPU supports.
#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/products.h"
#include "neml2/csrc/aoti/simd.h"

using namespace neml2::aoti;

namespace
{
double
max_err(const at::Tensor & a, const at::Tensor & b)
{
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

at::Tensor
reference(const std::vector<ProductTerm> & terms)
{
  at::Tensor out;
  for (const auto & t : terms)
  {
    auto term =
        t.scale * (t.a.defined() ? t.a.to(at::kDouble) * t.b.to(at::kDouble) : t.b.to(at::kDouble));
    out = out.defined() ? out + term : term;
  }
  return out;
}

/// The chain-rule shape of the terms: batch-innermost (K, B, 6) tangents times (1, B, 1)
/// coefficients, plus outer products of (K, B, 1) scalars and batch-outermost (1, B, 6) values.
std::vector<ProductTerm>
tangent_terms(at::ScalarType dtype)
{
  const int64_t K = 19, B = 333;
  auto o = at::TensorOptions().dtype(dtype);
  auto tangent = [&] { return at::randn({K, 6, B}, o).transpose(1, 2); };
  return {{1.0, at::randn({1, B, 1}, o), tangent()},
          {-0.5, at::randn({K, B, 1}, o), at::randn({1, B, 6}, o)},
          {2.0, at::randn({1, B, 1}, o), tangent()},
          {1.0, at::Tensor(), at::randn({K, 1, 6}, o)}};
}
} // namespace

TEST_CASE(matches_aten_double)
{
  at::manual_seed(1);
  const auto terms = tangent_terms(at::kDouble);
  for (auto path : supported_simd_paths())
  {
    auto out = sum_of_products(terms, path);
    EXPECT(out.sizes() == at::IntArrayRef({19, 333, 6}));
    EXPECT(out.stride(1) == 1); // the tangents' batch-innermost order
    EXPECT(max_err(out, reference(terms)) < 1e-13);
  }
}

TEST_CASE(matches_aten_float)
{
  at::manual_seed(2);
  const auto terms = tangent_terms(at::kFloat);
  for (auto path : supported_simd_paths())
  {
    auto out = sum_of_products(terms, path);
    EXPECT(out.scalar_type() == at::kFloat);
    EXPECT(max_err(out, reference(terms)) < 1e-5);
  }
}

TEST_CASE(strided_operands)
{
  at::manual_seed(3);
  auto o = at::TensorOptions().dtype(at::kDouble);
  auto x = at::randn({40, 12}, o).slice(1, 0, 12, 3); // stride 3 along the inner axis
  auto y = at::randn({12, 40}, o).t().slice(1, 0, 4);
  std::vector<ProductTerm> terms{{1.5, x, y}, {1.0, at::Tensor(), x}};
  for (auto path : supported_simd_paths())
    EXPECT(max_err(sum_of_products(terms, path), reference(terms)) < 1e-13);
}

TEST_CASE(every_row_length_on_every_path)
{
  // rows shorter than, equal to and longer than every vector width (2 .. 16 lanes), so each
  // path's vector loop and scalar tail run; tolerance: 3 terms of O(1) products, a few ulps
  for (auto dtype : {at::kDouble, at::kFloat})
    for (int64_t n = 1; n <= 35; ++n)
    {
      at::manual_seed(n);
      auto o = at::TensorOptions().dtype(dtype);
      std::vector<ProductTerm> terms{{0.5, at::randn({3, n}, o), at::randn({3, n}, o)},
                                     {-2.0, at::Tensor(), at::randn({3, n}, o)},
                                     {1.0, at::randn({3, 1}, o), at::randn({1, n}, o)}};
      const double tol = dtype == at::kDouble ? 1e-14 : 1e-5;
      for (auto path : supported_simd_paths())
        EXPECT(max_err(sum_of_products(terms, path), reference(terms)) < tol);
    }
}

TEST_CASE(unsupported_path_is_refused)
{
  auto x = at::randn({3, 4}, at::TensorOptions().dtype(at::kDouble));
  for (auto path : {SimdPath::avx2, SimdPath::avx512})
    if (!simd_path_supported(path))
      EXPECT_THROWS(FatalError, sum_of_products({{1.0, x, x}}, path), "not available on this CPU");
}

TEST_CASE(bad_terms)
{
  auto x = at::randn({3, 4}, at::TensorOptions().dtype(at::kDouble));
  EXPECT_THROWS(FatalError, sum_of_products({}), "no terms");
  EXPECT_THROWS(
      FatalError, sum_of_products({{1.0, x, at::Tensor()}}), "term 0 operand b is undefined");
  EXPECT_THROWS(FatalError,
                sum_of_products({{1.0, at::Tensor(), x}, {1.0, x, x.to(at::kFloat)}}),
                "term 1 operand b: dtype Float");
  EXPECT_THROWS(
      FatalError,
      sum_of_products({{1.0, at::Tensor(), x}, {1.0, at::Tensor(), at::randn({5}, x.options())}}),
      "do not broadcast together");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
