// A host written against NEML2 v3's C++ API, built with nothing but find_package(neml2) (which
// gives neml2::aoti and neml2::eager) and v3's header paths:
//   - neml2::aoti::load_model(stub, name[, scheduler]) (dispatchers/factory.h) over
//     SimpleScheduler{Config} (chunks) and StaticHybridScheduler{Config} (async worker), compared
//     with a direct neml2::aoti::Model call (forward and jacobian);
//   - neml2::eager::load_model on the scenario's input file, the same inputs, the same results;
//   - neml2::aoti::log (aoti/log.h): a host sink and default level see the Newton solver's lines;
//   - MPISimpleScheduler's v3 configuration and helpers (dispatchers/MPISimpleScheduler.h);
//   - the const evaluation members (calls through const Model & / DispatchedModel & /
//     eager::Model &) and param_jacobian's {outputs, P} pair (auto [out, P] = ...) on the
//     promoted parameters of the elasticity and scalar_implicit scenarios;
//   - neml2::eager::load_model(file, name, {"v3_ext.py"}) and eager::Model(file, name,
//     std::nullopt, {...}): a Python extension registering the model type the input file uses;
//   - the export macros of aoti/aoti_export.h and eager/eager_export.h.
// The test runs in this folder, so "v3_ext.py" is found relative to the working directory.
// Usage: v3_host <scenarios> [<artifacts>] (the repository's scenarios/ and the compiled
// scenario folder, by default $NEML2_TEST_ARTIFACTS).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/aoti_export.h"
#include "neml2/csrc/aoti/log.h"
#include "neml2/csrc/dispatchers/MPISimpleScheduler.h"
#include "neml2/csrc/dispatchers/SimpleScheduler.h"
#include "neml2/csrc/dispatchers/StaticHybridScheduler.h"
#include "neml2/csrc/dispatchers/factory.h"
#include "neml2/csrc/eager/Model.h"
#include "neml2/csrc/eager/eager_export.h"
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

// v3's export macros, used as a v3 host library would tag its own symbols
#if !defined(AOTI_EXPORT) || !defined(AOTI_NO_EXPORT) || !defined(EAGER_EXPORT) ||                 \
    !defined(EAGER_NO_EXPORT) || !defined(AOTI_DEPRECATED_EXPORT) || !defined(EAGER_DEPRECATED)
#error "NEML2 v3 export macros missing"
#endif
struct AOTI_EXPORT HostExported
{
  int value = 1;
};
struct EAGER_EXPORT HostEagerExported
{
  int value = 2;
};
AOTI_NO_EXPORT int
host_hidden()
{
  return HostExported{}.value + HostEagerExported{}.value;
}

// v3 signatures: const evaluation members; param_jacobian returns {outputs, P}
using PJ = std::pair<std::map<std::string, at::Tensor>, neml2::aoti::VariablePairJacobian>;
static_assert(std::is_same_v<decltype(std::declval<const neml2::aoti::Model &>().param_jacobian(
                                 std::map<std::string, at::Tensor>{})),
                             PJ>);
static_assert(std::is_same_v<decltype(std::declval<const neml2::aoti::DispatchedModel &>()
                                          .param_jacobian(std::map<std::string, at::Tensor>{})),
                             PJ>);
static_assert(std::is_same_v<decltype(std::declval<const neml2::eager::Model &>().param_jacobian(
                                 std::map<std::string, at::Tensor>{})),
                             PJ>);

/// Everything a v3 host can call on a const compiled model.
template <typename M>
void
const_calls(const M & model, const TensorMap & in, const TensorMap & ref, const std::string & what)
{
  expect_close(model.forward(in), ref, 1e-10, what + " const forward");
  const auto [values, J] = model.jacobian(in);
  expect_close(values, ref, 1e-10, what + " const jacobian values");
  require(!J.empty(), what + ": const jacobian has no block");
  TensorMap tangents;
  for (const auto & name : model.input_names())
    tangents[name] = at::ones_like(in.at(name));
  expect_close(model.jvp(in, tangents).first, ref, 1e-10, what + " const jvp values");
}

/// d out / d param against a central difference through per-call param_overrides.
void
check_param_jacobian(const neml2::aoti::Model & model,
                     const TensorMap & in,
                     const std::string & out,
                     const std::string & param,
                     const std::string & what)
{
  const auto [values, P] = model.param_jacobian(in);
  expect_close(values, model.forward(in), 1e-12, what + " param_jacobian outputs");
  const auto p = model.named_parameters().at(param);
  const double h = 1e-6 * std::max(1.0, p.abs().max().item<double>());
  const auto up = model.forward(in, {{param, p + h}}).at(out);
  const auto dn = model.forward(in, {{param, p - h}}).at(out);
  const auto fd = (up - dn) / (2 * h);
  const auto & block = P.at(out).at(param);
  const double scale = std::max(1.0, fd.abs().max().item<double>());
  require(max_diff(block, fd) <= 1e-5 * scale,
          what + ": d" + out + "/d" + param + " is not the FD");
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

  // v3: const references and param_jacobian's {outputs, P}
  const Model & direct_ref = direct;
  const_calls(direct_ref, in, ref, "Model");
  const DispatchedModel & chunked_ref = chunked;
  const_calls(chunked_ref, in, ref, "DispatchedModel");
  const std::string scaling = "implicit_rate.rate.scaling";
  check_param_jacobian(direct_ref, in, "x", scaling, "scalar_implicit");
  {
    auto [out, P] = chunked_ref.param_jacobian(in);
    const auto want = direct_ref.param_jacobian(in);
    expect_close(out, ref, 1e-10, "DispatchedModel param_jacobian outputs");
    require(max_diff(P.at("x").at(scaling), want.second.at("x").at(scaling)) <= 1e-10,
            "DispatchedModel param_jacobian block");
    const neml2::eager::Model & eager_ref = eager;
    auto [eager_out, eager_P] = eager_ref.param_jacobian(in);
    expect_close(eager_out, ref, 1e-10, "eager param_jacobian outputs");
    require(max_diff(eager_P.at("x").at(scaling), P.at("x").at(scaling)) <= 1e-8,
            "eager param_jacobian block");
    const auto g = eager_ref.param_vjp(in, {{"x", at::ones_like(out.at("x"))}});
    require(max_diff(g.at(scaling), P.at("x").at(scaling).sum()) <= 1e-8, "eager param_vjp");
  }
  // elasticity: stress is linear in the promoted E, so d stress / d E = stress / E
  {
    const Model elastic(artifacts / "elasticity" / "model");
    at::manual_seed(4);
    const TensorMap strain{{"strain", 1e-3 * (at::rand({B, 6}, at::kDouble) - 0.5)}};
    auto [out, P] = elastic.param_jacobian(strain);
    const auto E = elastic.named_parameters().at("model.E");
    expect_close(out, elastic.forward(strain), 1e-12, "elasticity param_jacobian outputs");
    require(max_diff(P.at("stress").at("model.E"), out.at("stress") / E) <= 1e-12,
            "elasticity d stress / d E");
    check_param_jacobian(elastic, strain, "stress", "model.E", "elasticity");
    const auto dispatched = load_model(artifacts / "elasticity" / "model_aoti.i", "model", simple);
    const auto [dout, dP] = dispatched.param_jacobian(strain);
    expect_close(dout, out, 1e-12, "elasticity DispatchedModel param_jacobian outputs");
    require(max_diff(dP.at("stress").at("model.E"), P.at("stress").at("model.E")) <= 1e-12,
            "elasticity DispatchedModel d stress / d E");
  }

  // v3: load = Python extensions imported before the model is built (relative to the cwd)
  {
    const auto ext_input = fs::current_path() / "v3_ext.i";
    const auto ext = neml2::eager::load_model(ext_input, "model", {"v3_ext.py"});
    const auto xs = at::tensor({2.0, 4.0}, at::kDouble);
    expect_close(ext.forward({{"x", xs}}), {{"y", 0.5 * xs + 1.0}}, 1e-15, "extension forward");
    const auto [values, P] = ext.param_jacobian({{"x", xs}});
    expect_close(values, {{"y", 0.5 * xs + 1.0}}, 1e-15, "extension param_jacobian outputs");
    require(max_diff(P.at("y").at("model.a"), xs) <= 1e-15, "extension d y / d a");
    const neml2::eager::Model twice(ext_input, "model", std::nullopt, {"v3_ext.py", "v3_ext.py"});
    require(twice.device() == c10::Device(c10::kCPU), "extension model device");
    const neml2::eager::Model on_cpu(ext_input, "model", c10::Device("cpu"), {"v3_ext.py"});
    expect_close(on_cpu.forward({{"x", xs}}),
                 {{"y", 0.5 * xs + 1.0}},
                 1e-15,
                 "extension with device_override");
  }
  require(host_hidden() == 3, "export macros");

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
