// Python bindings of libneml2's batched numerical kernels (neml2.aoti._aoti): batched_dense_solve,
// batched_parts_solve and sum_of_products, the SIMD path they take, and the workspace scope of
// sum_of_products' outputs.
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>
#include <c10/util/strides.h>
#include <torch/csrc/utils/pybind.h>

#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/aoti/linalg.h"
#include "stub_types.h"
#include "neml2/csrc/aoti/products.h"
#include "neml2/csrc/aoti/simd.h"
#include "neml2/csrc/aoti/workspace.h"

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

/// WorkspaceScope as a Python context manager: entered once, exited on the thread that entered
/// it (a scope belongs to its thread).
class PyWorkspaceScope
{
public:
  /// `workspace`: a Workspace (kept alive by this object), or None for a temporary one.
  explicit PyWorkspaceScope(py::object workspace)
    : _workspace(std::move(workspace))
  {
  }

  void enter()
  {
    if (_scope)
      throw FatalError("workspace_scope: already entered");
    if (_workspace.is_none())
      _scope.emplace();
    else
      _scope.emplace(_workspace.cast<Workspace &>());
    _thread = std::this_thread::get_id();
  }

  void exit()
  {
    if (_scope && _thread != std::this_thread::get_id())
      throw FatalError("workspace_scope: exited on another thread than the one that entered it");
    _scope.reset();
  }

private:
  py::object _workspace;
  std::optional<WorkspaceScope> _scope;
  std::thread::id _thread;
};
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
  py::class_<Workspace>(
      m,
      "Workspace",
      "Memory for the outputs of sum_of_products and workspace_empty inside a workspace_scope "
      "entered with it: a freed output's memory is reused for the next output of its byte size; "
      "between scopes up to retained_bytes of it is kept (the next solve starts warm), the rest "
      "is freed, and everything when the object is released or deleted. Torch's allocator and "
      "malloc's settings are not touched. Thread-safe.")
      .def(py::init<std::size_t>(), py::arg("retained_bytes") = default_retained_workspace_bytes)
      .def_property_readonly(
          "free_bytes", &Workspace::free_bytes, "Bytes of freed outputs kept for reuse.")
      .def("release", &Workspace::release, "Free every kept block now.");
  py::class_<PyWorkspaceScope>(
      m,
      "workspace_scope",
      "Context manager: inside it, this thread's sum_of_products and workspace_empty outputs "
      "come from the workspace of the thread's outermost scope: `workspace`, or (None) a "
      "temporary one freed when that scope exits.")
      .def(py::init<OptionalWorkspaceArg>(), py::arg("workspace") = py::none())
      .def(
          "__enter__",
          [](PyWorkspaceScope & self) -> PyWorkspaceScope &
          {
            guard("workspace_scope", [&] { self.enter(); });
            return self;
          },
          py::return_value_policy::reference)
      .def("__exit__",
           [](PyWorkspaceScope & self, const py::Args<py::object> &)
           {
             guard("workspace_scope", [&] { self.exit(); });
             return false;
           });
  m.def(
      "workspace_empty",
      [](const std::vector<int64_t> & sizes, const at::ScalarType dtype)
      {
        return guard("workspace_empty",
                     [&]
                     {
                       const auto strides = c10::contiguous_strides(sizes);
                       return workspace_empty_strided(
                           sizes, strides, at::TensorOptions().dtype(dtype));
                     });
      },
      py::arg("sizes"),
      py::arg("dtype"),
      "An uninitialized contiguous CPU tensor: from this thread's workspace inside a "
      "workspace_scope (its memory returns there when freed), else a plain torch.empty.");
  m.attr("DEFAULT_RETAINED_WORKSPACE_BYTES") = default_retained_workspace_bytes;
  m.def(
      "workspace_free_bytes",
      [] { return workspace_free_bytes(); },
      "Bytes of freed outputs this thread's workspace holds for reuse (0 outside a "
      "workspace_scope).");
}
} // namespace neml2::aoti::python
