// The NEML2 v2-style authoring API (neml2/neml2.h, neml2/tensors/{Scalar,jit}.h): thin wrappers
// over neml2::eager::Model and torch, no second model implementation.
#include <torch/csrc/utils/pybind.h>

#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <c10/core/DefaultDtype.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/models/Model.h"
#include "neml2/tensors/Scalar.h"
#include "neml2/tensors/jit.h"
#include "with_python.h"

namespace neml2
{
void
set_default_dtype(Dtype dtype)
{
  if (!c10::isFloatingType(dtype))
    throw aoti::FatalError(std::string("neml2::set_default_dtype: ") + c10::toString(dtype) +
                           " is not a floating-point dtype");
  // Through Python: importing torch resets the default to float32, so the interpreter (and
  // torch) must be up first; torch.set_default_dtype then sets the one process-wide default.
  eager::detail::with_python(
      "neml2::set_default_dtype",
      [&]
      {
        const auto torch = pybind11::module_::import("torch");
        torch.attr("set_default_dtype")(
            pybind11::cast(at::empty({0}, at::TensorOptions().dtype(dtype))).attr("dtype"));
      });
}

Dtype
get_default_dtype()
{
  return c10::get_default_dtype_as_scalartype();
}

TensorOptions
default_tensor_options()
{
  return TensorOptions().dtype(get_default_dtype()).device(kCPU);
}

Scalar
Scalar::full(const CScalar & init, const TensorOptions & options)
{
  return Scalar(at::full({}, init, options));
}

namespace
{
eager::LoadOptions
authoring_options()
{
  eager::LoadOptions options;
  options.device = c10::Device(kCPU);
  options.dtype = get_default_dtype();
  return options;
}
} // namespace

Model::Model(const std::filesystem::path & path, const std::string & name)
  : _name(name),
    _model(std::make_unique<eager::Model>(path, name, authoring_options()))
{
}

ValueMap
Model::value(const ValueMap & inputs)
{
  const eager::TensorMap in(inputs.begin(), inputs.end());
  const auto out = _model->value(in);
  return ValueMap(out.begin(), out.end());
}

std::ostream &
operator<<(std::ostream & os, const Model & model)
{
  return os << model.eager().summary();
}

std::shared_ptr<Model>
load_model(const std::filesystem::path & path, const std::string & mname)
{
  return std::make_shared<Model>(path, mname);
}

namespace jit
{
std::shared_ptr<Graph>
last_executed_optimized_graph()
{
  auto graph = torch::jit::lastExecutedOptimizedGraph();
  if (!graph)
    throw aoti::FatalError(
        "neml2::jit::last_executed_optimized_graph: no traced graph has run on this thread "
        "(tracing is off by default: set NEML2_JIT_TRACE=1 or call neml2.jit.set_tracing(True))");
  return graph;
}
} // namespace jit
} // namespace neml2
