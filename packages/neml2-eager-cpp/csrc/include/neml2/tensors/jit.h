// neml2::jit::last_executed_optimized_graph: the TorchScript graph the embedded interpreter ran
// last on this thread (tracing is opt-in: NEML2_JIT_TRACE=1, see neml2.jit.set_tracing).
#pragma once

#include <memory>

#include <torch/csrc/jit/ir/ir.h>

#include "neml2/csrc/eager/python.h"

namespace neml2::jit
{
using Graph = torch::jit::Graph;

/// The last traced graph executed on this thread, as optimized so far (a profiling graph after
/// the first call, the optimized one after a few more); print it with `std::cout << *graph`.
/// FatalError if no traced graph ran on this thread (tracing off: every evaluation is eager).
NEML2_EAGER_EXPORT std::shared_ptr<Graph> last_executed_optimized_graph();
} // namespace neml2::jit
