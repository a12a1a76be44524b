// Timing of neml2::aoti::Model calls (not a test): bench_model <artifact> <batch> <what> [reps]
//   what: forward | jacobian | copy (a raw copy of the same input bytes, the bandwidth yardstick)
// Inputs: strain-like inputs 1e-3 * U(0,1), a time input "t" = 1, "~1" inputs 0. Prints the
// median time per call. Run with OMP_NUM_THREADS=1 to compare with NEML2 v3's numbers.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Model.h"

using namespace neml2::aoti;

int
main(int argc, char ** argv)
{
  if (argc < 4)
  {
    std::cerr << "usage: bench_model <artifact> <batch> forward|jacobian|copy [reps]\n";
    return 2;
  }
  const std::string what = argv[3];
  const int64_t B = std::atoll(argv[2]);
  const int reps = argc > 4 ? std::atoi(argv[4]) : 20;
  try
  {
    Model m(argv[1]);
    TensorMap in;
    for (std::size_t i = 0; i < m.input_names().size(); ++i)
    {
      const auto & name = m.input_names()[i];
      auto shape = m.input_base_shapes()[i];
      shape.insert(shape.begin(), B);
      if (name == "t" || name == "time")
        in[name] = at::ones(shape, at::kDouble);
      else if (name.size() > 2 && name.substr(name.size() - 2) == "~1")
        in[name] = at::zeros(shape, at::kDouble);
      else
        in[name] = 1e-3 * at::rand(shape, at::kDouble);
    }
    at::Tensor sink;
    auto run = [&]
    {
      if (what == "forward")
        sink = m.forward(in).begin()->second;
      else if (what == "jacobian")
        sink = m.jacobian(in).first.begin()->second;
      else if (what == "copy")
      {
        // the same bytes the forward reads and writes: inputs in, outputs out
        for (const auto & [k, v] : in)
          sink = v.clone();
      }
      else
        throw FatalError("unknown mode '" + what + "'");
    };
    run(); // warm up
    // batch the timing of very short calls so clock resolution does not matter
    const int inner = B <= 100 ? 2000 : 1;
    std::vector<double> times;
    for (int r = 0; r < reps; ++r)
    {
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < inner; ++k)
        run();
      const auto t1 = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double>(t1 - t0).count() / inner);
    }
    std::sort(times.begin(), times.end());
    std::cout << what << " B=" << B << " median " << times[times.size() / 2] * 1e6 << " us (min "
              << times.front() * 1e6 << " us)\n";
  }
  catch (const Exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
