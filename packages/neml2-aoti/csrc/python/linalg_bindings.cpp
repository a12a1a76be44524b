// Python binding of neml2::aoti::batched_dense_solve (neml2.aoti._aoti.batched_dense_solve).
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
}
} // namespace neml2::aoti::python
