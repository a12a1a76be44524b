// Per-call overhead of cpp-eager at batch 1 against py-eager in the same process:
//   bench_eager [calls]   (run with VIRTUAL_ENV and PYTHONPATH=<this folder>, OMP_NUM_THREADS=1)
// Prints seconds per forward call for py-eager (Model.call_by_name from Python), the Python
// bridge alone (EagerModel.forward from Python) and cpp-eager (neml2::eager::Model::forward from
// C++), best of 5 rounds each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include <ATen/ATen.h>

#include "neml2/csrc/eager/load_model.h"
#include "scenarios.h"

using namespace neml2;

namespace
{
double
cpp_eager(eager::Model & m, const aoti::TensorMap & x, int calls)
{
  m.forward(x);
  double best = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 5; ++round)
  {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      m.forward(x);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    best = std::min(best, dt.count() / calls);
  }
  return best;
}
} // namespace

int
main(int argc, char ** argv)
{
  const int calls = argc > 1 ? std::atoi(argv[1]) : 2000;
  const char * names[] = {"elasticity", "scalar_implicit"};
  std::printf("%-16s %14s %14s %14s %8s\n",
              "model (B=1)",
              "py-eager [us]",
              "bridge [us]",
              "cpp-eager [us]",
              "ratio");
  for (int s = 0; s < 2; ++s)
  {
    const int n = s == 0 ? calls : calls / 10;
    auto m = eager::load_model(scenarios::input_file(names[s]), "model");
    const auto x = scenarios::inputs(m.input_names(), m.input_base_shapes(), 1, 1);
    auto args = x;
    args["__calls__"] = at::scalar_tensor(n, at::kLong);
    args["__scenario__"] = at::scalar_tensor(s, at::kLong);
    const double py =
        eager::call("bench", "eager_bench", "py_eager", args).at("seconds").item<double>();
    const double br =
        eager::call("bench", "eager_bench", "bridge", args).at("seconds").item<double>();
    const double cpp = cpp_eager(m, x, n);
    std::printf(
        "%-16s %14.1f %14.1f %14.1f %8.2f\n", names[s], 1e6 * py, 1e6 * br, 1e6 * cpp, cpp / py);
  }
  return 0;
}
