// Python bindings of neml2::aoti::batched_dense_solve and batched_parts_solve (neml2.aoti._aoti).
#include <tuple>
#include <vector>

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/aoti/linalg.h"

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
}
} // namespace neml2::aoti::python
