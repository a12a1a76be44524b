// Python bindings of libneml2's batched numerical kernels (neml2.aoti._aoti): batched_dense_solve,
// batched_parts_solve and sum_of_products, and the SIMD path they take.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/aoti/linalg.h"
#include "neml2/csrc/aoti/products.h"
#include "neml2/csrc/aoti/simd.h"

namespace py = pybind11;

namespace neml2::aoti::python
{
namespace
{
/// The path a kernel's `simd` argument names (None: the process's, NEML2_SIMD).
std::optional<SimdPath>
path_arg(const std::optional<std::string> & simd)
{
  return simd ? std::optional<SimdPath>(parse_simd_path(*simd)) : std::nullopt;
}

constexpr const char * simd_doc =
    " simd: 'scalar', 'avx2' or 'avx512' forces that kernel path for this call (a path the CPU "
    "lacks is a FatalError); None takes the process's (NEML2_SIMD).";

constexpr const char * overwrite_doc =
    " overwrite_b: b is not needed afterwards, so the native kernel may solve in b's memory and "
    "return x aliasing b (when b is contiguous and shares no memory with the matrix; otherwise b "
    "is left as it was).";
} // namespace

void
bind_linalg(py::module_ & m)
{
  m.def(
      "simd_path",
      [] { return guard("simd_path", [] { return std::string(simd_path_name(simd_path())); }); },
      "The SIMD path the native kernels take in this process: NEML2_SIMD=auto|avx512|avx2|scalar "
      "(read once; auto or unset: the widest supported). FatalError for an unknown name or a "
      "path this CPU lacks.");
  m.def(
      "supported_simd_paths",
      []
      {
        std::vector<std::string> names;
        for (auto p : supported_simd_paths())
          names.emplace_back(simd_path_name(p));
        return names;
      },
      "The SIMD paths this CPU and build support, scalar first, the widest last.");
  m.def(
      "batched_dense_solve",
      [](const at::Tensor & A,
         const at::Tensor & b,
         const std::optional<std::string> & simd,
         bool overwrite_b)
      {
        const auto path = guard("batched_dense_solve", [&] { return path_arg(simd); });
        py::gil_scoped_release release;
        return guard("batched_dense_solve",
                     [&] { return batched_dense_solve(A, b, path, overwrite_b); });
      },
      py::arg("A"),
      py::arg("b"),
      py::kw_only(),
      py::arg("simd") = py::none(),
      py::arg("overwrite_b") = false,
      (std::string("Solve A x = b per batch element: A (B, n, n), b (B, n) or (B, n, k); a "
                   "singular element gives non-finite x for that element.") +
       simd_doc + overwrite_doc)
          .c_str());
  m.def(
      "batched_parts_solve",
      [](const std::vector<std::tuple<int64_t, int64_t, at::Tensor>> & parts,
         int64_t n,
         const at::Tensor & b,
         const std::optional<std::string> & simd,
         bool overwrite_b)
      {
        std::vector<MatrixPart> ps;
        ps.reserve(parts.size());
        for (const auto & [row, col, t] : parts)
          ps.push_back({row, col, t});
        const auto path = guard("batched_parts_solve", [&] { return path_arg(simd); });
        py::gil_scoped_release release;
        return guard("batched_parts_solve",
                     [&] { return batched_parts_solve(ps, n, b, path, overwrite_b); });
      },
      py::arg("parts"),
      py::arg("n"),
      py::arg("b"),
      py::kw_only(),
      py::arg("simd") = py::none(),
      py::arg("overwrite_b") = false,
      (std::string("batched_dense_solve of the (B, n, n) matrices that are zero outside parts = "
                   "[(row, col, P (B, rows, cols)), ...] (disjoint), without assembling them.") +
       simd_doc + overwrite_doc)
          .c_str());
  m.def(
      "sum_of_products",
      [](const std::vector<std::tuple<double, std::optional<at::Tensor>, at::Tensor>> & terms,
         const std::optional<std::string> & simd)
      {
        std::vector<ProductTerm> ts;
        ts.reserve(terms.size());
        for (const auto & [scale, a, b] : terms)
          ts.push_back({scale, a.value_or(at::Tensor()), b});
        const auto path = guard("sum_of_products", [&] { return path_arg(simd); });
        py::gil_scoped_release release;
        return guard("sum_of_products", [&] { return sum_of_products(ts, path); });
      },
      py::arg("terms"),
      py::kw_only(),
      py::arg("simd") = py::none(),
      (std::string("sum(scale * a * b for scale, a, b in terms) over broadcast operands in one "
                   "pass (a None stands for 1); the output takes the memory order of the largest "
                   "operand.") +
       simd_doc)
          .c_str());
}
} // namespace neml2::aoti::python
