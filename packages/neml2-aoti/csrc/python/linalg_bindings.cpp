// Python bindings of libneml2's batched numerical kernels (neml2.aoti._aoti): batched_dense_solve,
// batched_parts_solve and sum_of_products.
#include <optional>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/aoti/linalg.h"
#include "neml2/csrc/aoti/products.h"

namespace py = pybind11;

namespace neml2::aoti::python
{
void
bind_linalg(py::module_ & m)
{
  m.def(
      "batched_dense_solve",
      [](const at::Tensor & A, const at::Tensor & b)
      {
        py::gil_scoped_release release;
        return guard("batched_dense_solve", [&] { return batched_dense_solve(A, b); });
      },
      py::arg("A"),
      py::arg("b"),
      "Solve A x = b per batch element: A (B, n, n), b (B, n) or (B, n, k); a singular "
      "element gives non-finite x for that element.");
  m.def(
      "batched_parts_solve",
      [](const std::vector<std::tuple<int64_t, int64_t, at::Tensor>> & parts,
         int64_t n,
         const at::Tensor & b)
      {
        std::vector<MatrixPart> ps;
        ps.reserve(parts.size());
        for (const auto & [row, col, t] : parts)
          ps.push_back({row, col, t});
        py::gil_scoped_release release;
        return guard("batched_parts_solve", [&] { return batched_parts_solve(ps, n, b); });
      },
      py::arg("parts"),
      py::arg("n"),
      py::arg("b"),
      "batched_dense_solve of the (B, n, n) matrices that are zero outside parts = [(row, col, "
      "P (B, rows, cols)), ...] (disjoint), without assembling them.");
  m.def(
      "sum_of_products",
      [](const std::vector<std::tuple<double, std::optional<at::Tensor>, at::Tensor>> & terms)
      {
        std::vector<ProductTerm> ts;
        ts.reserve(terms.size());
        for (const auto & [scale, a, b] : terms)
          ts.push_back({scale, a.value_or(at::Tensor()), b});
        py::gil_scoped_release release;
        return guard("sum_of_products", [&] { return sum_of_products(ts); });
      },
      py::arg("terms"),
      "sum(scale * a * b for scale, a, b in terms) over broadcast operands in one pass (a None "
      "stands for 1); the output takes the memory order of the largest operand.");
}
} // namespace neml2::aoti::python
