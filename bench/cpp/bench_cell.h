// One benchmark cell for the C++ routes, timed the way bench/suite/worker.py times the Python
// routes. A program calls run_cell(argc, argv, load) with a loader of its model type:
//
//   <program> <model> <forward|jacobian> <batch> <threads> <repeat> <min_repeat> <budget_s>
//
// Inputs: a zero state of shape (batch, *base) per input; strain = a 1 % uniaxial step (0.01,
// -0.005, -0.005, 0, 0, 0) and t = 1 when the model has a "t" input, else the elastic strain
// (1e-3, -3e-4, -3e-4, 2e-4, 0, 1e-4). One warm-up call, then up to <repeat> timed calls, at
// least <min_repeat> (one if the first timed call took over 2 s), until <budget_s> is spent.
// Prints one line: RESULT {"setup": s, "first": s, "times": [s, ...]} or RESULT {"error": ...}.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

namespace bench
{
using Clock = std::chrono::steady_clock;
using TensorMap = std::map<std::string, at::Tensor>;

inline double
seconds_since(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class M>
TensorMap
inputs(const M & model, int64_t batch)
{
  TensorMap x;
  const auto & names = model.input_names();
  const auto & bases = model.input_base_shapes();
  bool transient = false;
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    std::vector<int64_t> shape{batch};
    shape.insert(shape.end(), bases[i].begin(), bases[i].end());
    x[names[i]] = at::zeros(shape, at::kDouble);
    transient = transient || names[i] == "t";
  }
  if (transient)
    x["t"].fill_(1.0);
  const std::vector<double> strain = transient
                                         ? std::vector<double>{0.01, -0.005, -0.005, 0, 0, 0}
                                         : std::vector<double>{1e-3, -3e-4, -3e-4, 2e-4, 0, 1e-4};
  x["strain"].copy_(at::tensor(strain, at::kDouble).expand({batch, 6}));
  return x;
}

/// Parse the arguments, load the model with `load(path)` (returns a std::unique_ptr<M>) and time.
template <class Load>
int
run_cell(int argc, char ** argv, Load load)
{
  if (argc != 8)
  {
    std::fprintf(stderr,
                 "usage: %s MODEL forward|jacobian BATCH THREADS REPEAT MIN_REPEAT BUDGET\n",
                 argv[0]);
    return 2;
  }
  const std::string path = argv[1], mode = argv[2];
  const int64_t batch = std::atoll(argv[3]);
  const int repeat = std::atoi(argv[5]), min_repeat = std::atoi(argv[6]);
  const double budget = std::atof(argv[7]);
  try
  {
    at::set_num_threads(std::atoi(argv[4]));
    const auto t_setup = Clock::now();
    auto model = load(path);
    const auto x = inputs(*model, batch);
    const double setup = seconds_since(t_setup);
    auto call = [&]()
    {
      if (mode == "jacobian")
        (void)model->jacobian(x);
      else
        (void)model->forward(x);
    };
    auto t0 = Clock::now();
    call();
    const double first = seconds_since(t0);
    std::vector<double> times;
    double spent = 0.0;
    while (static_cast<int>(times.size()) < repeat)
    {
      const int need = (!times.empty() && times.front() > 2.0) ? 1 : min_repeat;
      if (static_cast<int>(times.size()) >= need && spent + first >= budget)
        break;
      t0 = Clock::now();
      call();
      times.push_back(seconds_since(t0));
      spent += times.back();
    }
    std::printf("RESULT {\"setup\": %.9g, \"first\": %.9g, \"times\": [", setup, first);
    for (std::size_t i = 0; i < times.size(); ++i)
      std::printf("%s%.9g", i ? ", " : "", times[i]);
    std::printf("]}\n");
  }
  catch (const std::exception & e)
  {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    for (auto & c : what)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
        c = '\'';
    std::printf("RESULT {\"error\": \"%s\"}\n", what.c_str());
  }
  std::fflush(stdout);
  return 0;
}
} // namespace bench
