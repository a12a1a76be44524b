// A host written against NEML2 v3's C++ API, built with nothing but find_package(neml2) (which
// gives neml2::aoti and neml2::eager) and v3's header paths:
//   - neml2::aoti::load_model(stub, name[, scheduler]) (dispatchers/factory.h) over
//     SimpleScheduler{Config} (chunks) and StaticHybridScheduler{Config} (async worker), compared
//     with a direct neml2::aoti::Model call (forward and jacobian);
//   - neml2::eager::load_model on the scenario's input file, the same inputs, the same results;
//   - neml2::aoti::log (aoti/log.h): a host sink and default level see the Newton solver's lines;
//   - MPISimpleScheduler's v3 configuration and helpers (dispatchers/MPISimpleScheduler.h).
// Usage: v3_host <scenarios> [<artifacts>] (packages/neml2-aoti/tests/scenarios and the compiled
// scenario folder, by default $NEML2_TEST_ARTIFACTS).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/log.h"
#include "neml2/csrc/dispatchers/MPISimpleScheduler.h"
#include "neml2/csrc/dispatchers/SimpleScheduler.h"
#include "neml2/csrc/dispatchers/StaticHybridScheduler.h"
#include "neml2/csrc/dispatchers/factory.h"
#include "neml2/csrc/eager/load_model.h"

namespace fs = std::filesystem;
using neml2::aoti::TensorMap;

namespace
{
struct Failure : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

void
require(bool ok, const std::string & what)
{
  if (!ok)
    throw Failure(what);
}

double
max_diff(const at::Tensor & a, const at::Tensor & b)
{
  require(a.sizes() == b.sizes(), "shape mismatch");
  return (a - b).abs().max().item<double>();
}

void
expect_close(const TensorMap & got, const TensorMap & ref, double tol, const std::string & what)
{
  require(got.size() == ref.size(), what + ": different outputs");
  for (const auto & [name, value] : ref)
  {
    require(got.count(name) == 1, what + ": no output '" + name + "'");
    const double d = max_diff(got.at(name), value);
    require(d <= tol, what + ": '" + name + "' differs by " + std::to_string(d));
  }
}

void
expect_close(const neml2::aoti::JacobianResult & got,
             const neml2::aoti::JacobianResult & ref,
             double tol,
             const std::string & what)
{
  expect_close(got.first, ref.first, tol, what + " values");
  require(!ref.second.empty(), what + ": no compiled derivative");
  for (const auto & [y, row] : ref.second)
    for (const auto & [x, block] : row)
    {
      require(got.second.count(y) && got.second.at(y).count(x),
              what + ": no block d" + y + "/d" + x);
      const double d = max_diff(got.second.at(y).at(x), block);
      require(d <= tol, what + ": d" + y + "/d" + x + " differs by " + std::to_string(d));
    }
}

/// One backward-Euler step of dx/dt = -2 x^3 per batch element (the scalar_implicit scenario).
TensorMap
step_inputs(int64_t batch)
{
  at::manual_seed(3);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  const auto x_old = 0.5 + at::rand({batch}, opts);
  return {{"x~1", x_old},
          {"x", x_old.clone()},
          {"t~1", at::zeros({batch}, opts)},
          {"t", 0.05 + 0.1 * at::rand({batch}, opts)}};
}

void
run(const fs::path & artifacts, const fs::path & scenarios)
{
  using namespace neml2::aoti;
  const auto stub = artifacts / "scalar_implicit" / "model_aoti.i";
  const int64_t B = 13;
  const auto in = step_inputs(B);

  Model direct(artifacts / "scalar_implicit" / "model");
  const auto ref = direct.forward(in);
  const auto ref_jac = direct.jacobian(in);
  // an independent check of the direct call: x solves 2 dt x^3 + x - x~1 = 0
  const auto x = ref.at("x"), dt = in.at("t") - in.at("t~1");
  require((2.0 * dt * x.pow(3) + x - in.at("x~1")).abs().max().item<double>() < 1e-10,
          "the direct call does not solve the step");

  // v3: SimpleScheduler::Config{device, batch_size}, chunks of 4 rows (4 + 4 + 4 + 1)
  auto simple = std::make_shared<SimpleScheduler>(SimpleScheduler::Config{"cpu", 4});
  require(simple->device() == c10::Device(c10::kCPU) && simple->batch_size() == 4,
          "SimpleScheduler::Config was not applied");
  auto chunked = load_model(stub, "model", simple);
  expect_close(chunked.forward(in), ref, 1e-10, "SimpleScheduler forward");
  expect_close(chunked.jacobian(in), ref_jac, 1e-10, "SimpleScheduler jacobian");

  // v3: StaticHybridScheduler::Config (one cpu worker, chunks of 3, two in flight)
  StaticHybridScheduler::Config hybrid_config;
  hybrid_config.devices = {"cpu"};
  hybrid_config.batch_sizes = {3};
  hybrid_config.capacities = {6};
  hybrid_config.priorities = {2.5};
  auto hybrid = load_model(stub, "model", std::make_shared<StaticHybridScheduler>(hybrid_config));
  expect_close(hybrid.forward(in), ref, 1e-10, "StaticHybridScheduler forward");
  expect_close(hybrid.jacobian(in), ref_jac, 1e-10, "StaticHybridScheduler jacobian");

  // v3: no scheduler
  auto plain = load_model(stub, "model");
  expect_close(plain.forward(in), ref, 1e-10, "load_model without scheduler");

  // v3: neml2::eager::load_model on the same input file and the same inputs
  auto eager = neml2::eager::load_model(scenarios / "scalar_implicit.i", "model");
  expect_close(eager.forward(in), ref, 1e-10, "eager forward");
  const auto eager_jac = eager.jacobian(in);
  for (const auto & [y, row] : ref_jac.second)
    for (const auto & [x_name, block] : row)
      if (eager_jac.second.count(y) && eager_jac.second.at(y).count(x_name))
        require(max_diff(eager_jac.second.at(y).at(x_name), block) <= 1e-8,
                "eager jacobian d" + y + "/d" + x_name + " differs");

  // v3: neml2::aoti::log -- a host sink and a host default level see the Newton solver's lines
  std::vector<std::string> lines;
  log::set_sink([&](log::Level, const std::string & line) { lines.push_back(line); });
  if (std::getenv("NEML2_LOGS") == nullptr)
  {
    log::set_default_level(log::Channel::Newton, log::Level::Info);
    require(log::enabled(log::Channel::Newton, log::Level::Info), "log default level ignored");
    chunked.forward(in);
    require(!lines.empty() && lines.front() == "[neml2:newton ][info] ---- begin newton solve ----",
            "the Newton solver did not log through the host sink");
    log::reset_defaults();
  }
  lines.clear();
  log::emit(log::Channel::Driver, log::Level::Warning, "host message");
  log::reset_sink();
  require(lines.size() == 1 && lines.front() == "[neml2:driver ][warn] host message",
          "log::emit did not reach the host sink");

  // v3: MPISimpleScheduler's configuration and helpers (constructed only without MPI support,
  // where it must refuse: this host does not initialize MPI)
  MPISimpleScheduler::Config mpi_config{{"cpu"}, {4}, nullptr};
  require(parse_mpi_devices(mpi_config.devices).front() == c10::Device(c10::kCPU),
          "parse_mpi_devices");
  require(mpi_device_index(3, 4, 2) == 1, "mpi_device_index");
  if (!mpi_enabled())
  {
    try
    {
      MPISimpleScheduler refused(mpi_config);
      throw Failure("MPISimpleScheduler without MPI support must throw");
    }
    catch (const FatalError &)
    {
    }
  }
}
} // namespace

int
main(int argc, char ** argv)
{
  const char * env = std::getenv("NEML2_TEST_ARTIFACTS");
  if (argc < 2 || (argc < 3 && !env))
  {
    std::cerr << "usage: v3_host <scenarios> [<artifacts>, default $NEML2_TEST_ARTIFACTS]\n";
    return 2;
  }
  const fs::path scenarios = argv[1], artifacts = argc > 2 ? argv[2] : env;
  if (!fs::exists(artifacts / "scalar_implicit" / "model_aoti.i"))
  {
    std::cerr << "v3_host FAILED: no compiled scalar_implicit scenario under " << artifacts
              << " (python -m neml2.aoti.compile.testing DIR --dtypes float64)\n";
    return 1;
  }
  try
  {
    run(artifacts, scenarios);
  }
  catch (const std::exception & e)
  {
    std::cerr << "v3_host FAILED: " << e.what() << "\n";
    return 1;
  }
  std::cout << "v3_host OK\n";
  return 0;
}
