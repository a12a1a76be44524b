// Chunk-size sweep of the dispatcher (not a ctest): the one-step material update of an artifact at
// batch B through a direct Model call and through SimpleScheduler / StaticHybridScheduler chunks.
//   OMP_NUM_THREADS=1 dispatch_bench <artifact_root> [B=100000] [repeats=5] [chunk sizes...]
// Inputs: `strain` a 1 % uniaxial increment, `t` = 1, everything else 0 (bench/bench_chaboche.py's
// step); `x` and `x~1` = 1 (the state of scenarios/scalar_implicit.i). Prints the median wall time of each configuration, its ratio to direct and max |diff|.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/dispatchers/AsyncScheduler.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"

using namespace neml2::aoti;

namespace
{
double
median_ms(const std::function<void()> & f, int repeats)
{
  f(); // warm-up
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i)
  {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

TensorMap
step_inputs(const Model & model, int64_t batch)
{
  TensorMap in;
  const auto opts = at::TensorOptions().dtype(model.dtype());
  for (std::size_t i = 0; i < model.input_names().size(); ++i)
  {
    const auto & name = model.input_names()[i];
    auto shape = model.input_base_shapes()[i];
    shape.insert(shape.begin(), batch);
    auto value = at::zeros(shape, opts);
    if (name == "t" || name == "x" || name == "x~1")
      value.fill_(1.0);
    if (name == "strain")
    {
      value.select(-1, 0).fill_(0.01);
      value.select(-1, 1).fill_(-0.005);
      value.select(-1, 2).fill_(-0.005);
    }
    in.emplace(name, value);
  }
  return in;
}

double
max_diff(const TensorMap & a, const TensorMap & b)
{
  double out = 0;
  for (const auto & [name, value] : a)
    out = std::max(out, (value - b.at(name)).abs().max().item<double>());
  return out;
}
} // namespace

int
main(int argc, char ** argv)
{
  if (argc < 2)
  {
    std::cerr << "usage: " << argv[0] << " <artifact_root> [B] [repeats] [chunk sizes...]\n";
    return 2;
  }
  const std::string root = argv[1];
  const int64_t batch = argc > 2 ? std::stoll(argv[2]) : 100000;
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 5;
  std::vector<int64_t> sizes;
  for (int i = 4; i < argc; ++i)
    sizes.push_back(std::stoll(argv[i]));
  if (sizes.empty())
    sizes = {500, 1000, 2000, 5000, 10000, 20000, 50000};

  std::cout << "torch threads " << at::get_num_threads() << ", B " << batch << ", median of "
            << repeats << "\n";
  Model direct(root);
  const auto in = step_inputs(direct, batch);
  TensorMap ref;
  const double t0 = median_ms([&] { ref = direct.forward(in); }, repeats);
  std::cout << std::fixed << std::setprecision(2) << "direct                     " << std::setw(9)
            << t0 << " ms" << std::endl;
  auto report = [&](const std::string & label, DispatchedModel & d)
  {
    TensorMap out;
    const double t = median_ms([&] { out = d.forward(in); }, repeats);
    std::cout << std::left << std::setw(27) << label << std::right << std::setw(9) << t << " ms  x"
              << std::setprecision(3) << t / t0 << std::setprecision(2) << "  max|diff| "
              << std::scientific << max_diff(out, ref) << std::fixed << std::endl;
  };
  for (auto bs : sizes)
  {
    DispatchedModel d(root, std::make_shared<SimpleScheduler>(c10::Device(c10::kCPU), bs));
    report("simple chunk " + std::to_string(bs), d);
  }
  for (auto bs : sizes)
  {
    DispatchedModel d(root,
                      std::make_shared<StaticHybridScheduler>(std::vector<c10::Device>{c10::kCPU},
                                                              std::vector<int64_t>{bs},
                                                              std::vector<int64_t>{2 * bs}));
    report("hybrid cpu " + std::to_string(bs) + " cap " + std::to_string(2 * bs), d);
  }
  return 0;
}
