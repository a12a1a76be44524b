// DispatchedModel against direct Model calls on real artifacts (the `dispatch.artifacts` fixture):
// every chunk size gives bit-identical forward/jacobian/jvp for a forward model and 1e-10 for an
// implicit one; batched parameters are sliced, the async hybrid path and load_model agree, and
// bad calls raise FatalError. A sub-batch model is chunked along its batch axes only.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/log.h"
#include "neml2/csrc/dispatchers/AsyncScheduler.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/load_model.h"

using namespace neml2::aoti;
namespace fs = std::filesystem;

namespace
{
const int64_t B = 23;
/// Chunk sizes: no chunking, divisors and non-divisors of B, B itself and larger than B.
const std::vector<int64_t> chunk_sizes{0, 1, 4, 5, 22, 23, 24, 100};

fs::path
scenario(const std::string & name)
{
  const char * dir = std::getenv("NEML2_DISPATCH_ARTIFACTS");
  if (!dir)
    throw std::runtime_error("NEML2_DISPATCH_ARTIFACTS is not set (run through ctest)");
  return fs::path(dir) / name;
}

at::TensorOptions
f64()
{
  return at::TensorOptions().dtype(at::kDouble);
}

TensorMap
strain_inputs(int64_t batch)
{
  at::manual_seed(7);
  return {{"strain", 1e-3 * (at::rand({batch, 6}, f64()) - 0.5)}};
}

/// The scalar ODE step: x~1 in [0.5, 1.5], dt in [0.05, 0.15], warm start x = x~1.
TensorMap
ode_inputs(int64_t batch)
{
  at::manual_seed(11);
  const auto x_old = 0.5 + at::rand({batch}, f64());
  return {{"x~1", x_old},
          {"x", x_old.clone()},
          {"t~1", at::zeros({batch}, f64())},
          {"t", 0.05 + 0.1 * at::rand({batch}, f64())}};
}

void
expect_equal(const TensorMap & a, const TensorMap & b, double tol)
{
  EXPECT(a.size() == b.size());
  for (const auto & [name, value] : a)
  {
    EXPECT(b.count(name));
    EXPECT(value.sizes() == b.at(name).sizes());
    if (tol == 0)
      EXPECT(at::equal(value, b.at(name)));
    else
      EXPECT((value - b.at(name)).abs().max().item<double>() <= tol);
  }
}

void
expect_equal(const VariablePairJacobian & a, const VariablePairJacobian & b, double tol)
{
  EXPECT(a.size() == b.size());
  for (const auto & [y, row] : a)
    expect_equal(row, b.at(y), tol);
}

std::shared_ptr<WorkScheduler>
simple(int64_t bs)
{
  return std::make_shared<SimpleScheduler>(c10::Device(c10::kCPU), bs);
}
} // namespace

TEST_CASE(forward_model_every_chunk_size_bit_identical)
{
  const auto root = scenario("elasticity") / "model";
  Model direct(root);
  const auto in = strain_inputs(B);
  const auto ref = direct.forward(in);
  const auto ref_jac = direct.jacobian(in);
  const TensorMap tangent{{"strain", at::rand({B, 6}, f64())}};
  const auto ref_jvp = direct.jvp(in, tangent);
  for (auto bs : chunk_sizes)
  {
    DispatchedModel d(root, simple(bs));
    expect_equal(d.forward(in), ref, 0);
    const auto jac = d.jacobian(in);
    expect_equal(jac.first, ref_jac.first, 0);
    expect_equal(jac.second, ref_jac.second, 0);
    const auto jvp = d.jvp(in, tangent);
    expect_equal(jvp.first, ref_jvp.first, 0);
    expect_equal(jvp.second, ref_jvp.second, 0);
  }
}

TEST_CASE(batched_parameter_sliced_per_chunk)
{
  const auto root = scenario("elasticity") / "model";
  Model direct(root);
  const auto in = strain_inputs(B);
  const auto E = 500.0 + 1000.0 * at::rand({B}, f64());
  // As a per-call override and as a stored (set_parameter) batched value.
  const auto ref = direct.forward(in, {{"model.E", E}});
  for (auto bs : {int64_t(4), int64_t(7), int64_t(100)})
  {
    DispatchedModel d(root, simple(bs));
    expect_equal(d.forward(in, {{"model.E", E}}), ref, 0);
    d.set_parameter("model.E", E);
    expect_equal(d.forward(in), ref, 0);
    // Linear in E: the chunked result scales with it exactly like the direct one.
    d.named_parameters()["model.E"] = 2.0 * E;
    expect_equal(d.forward(in), direct.forward(in, {{"model.E", 2.0 * E}}), 0);
  }
}

TEST_CASE(const_dispatched_model_calls)
{
  // NEML2 v3: the evaluation members are const; param_jacobian returns {outputs, P}.
  const auto root = scenario("elasticity") / "model";
  Model direct(root);
  const auto in = strain_inputs(B);
  DispatchedModel owner(root, simple(7));
  owner.set_parameter("model.E", 2.0 * direct.named_parameters().at("model.E"));
  const DispatchedModel & d = owner; // the dirty parameters are synced by a const call
  const TensorMap twice{{"model.E", 2.0 * direct.named_parameters().at("model.E")}};
  expect_equal(d.forward(in), direct.forward(in, twice), 0);
  const auto [values, P] = d.param_jacobian(in);
  const auto ref = direct.param_jacobian(in, twice);
  expect_equal(values, ref.first, 0);
  expect_equal(P, ref.second, 0);
  expect_equal(d.jacobian(in).second, direct.jacobian(in, twice).second, 0);
  const TensorMap cot{{"stress", at::ones_like(values.at("stress"))}};
  expect_equal(d.param_vjp(in, cot), direct.param_vjp(in, cot, twice), 1e-12);
}

TEST_CASE(broadcast_inputs_pass_through)
{
  // A size-1 batch entry (and the batch-less parameter) broadcast against the chunked ones.
  const auto root = scenario("elasticity") / "model";
  Model direct(root);
  const auto E = at::full({1}, 750.0, f64());
  const auto in = strain_inputs(B);
  DispatchedModel d(root, simple(6));
  expect_equal(d.forward(in, {{"model.E", E}}), direct.forward(in, {{"model.E", E}}), 0);
  const TensorMap one = strain_inputs(1);
  expect_equal(d.forward(one), direct.forward(one), 0);
}

TEST_CASE(async_hybrid_bit_identical)
{
  const auto root = scenario("elasticity") / "model";
  Model direct(root);
  const auto in = strain_inputs(B);
  auto hybrid = std::make_shared<StaticHybridScheduler>(
      std::vector<c10::Device>{c10::kCPU}, std::vector<int64_t>{5}, std::vector<int64_t>{10});
  DispatchedModel d(root, hybrid);
  for (int repeat = 0; repeat < 3; ++repeat)
  {
    expect_equal(d.forward(in), direct.forward(in), 0);
    expect_equal(d.jacobian(in).second, direct.jacobian(in).second, 0);
  }
}

TEST_CASE(implicit_model_within_1e10)
{
  const auto root = scenario("scalar_implicit") / "model";
  Model direct(root);
  const auto in = ode_inputs(B);
  const auto ref = direct.forward(in);
  // The root of 2 dt x^3 + x - x~1 = 0: an independent check of the direct call itself.
  const auto x = ref.at("x"), dt = in.at("t") - in.at("t~1");
  EXPECT((2.0 * dt * x.pow(3) + x - in.at("x~1")).abs().max().item<double>() < 1e-10);
  const auto ref_jac = direct.jacobian(in);
  for (auto bs : chunk_sizes)
  {
    DispatchedModel d(root, simple(bs));
    expect_equal(d.forward(in), ref, 1e-10);
    const auto jac = d.jacobian(in);
    expect_equal(jac.first, ref_jac.first, 1e-10);
    expect_equal(jac.second, ref_jac.second, 1e-10);
  }
}

TEST_CASE(taylor_within_1e10)
{
  // The FCC Taylor model (crystal plasticity: 12 slip systems on a sub-batch axis inside the
  // Newton graphs), one step of randomly oriented grains: each chunk solves its own Newton
  // problem, so chunked results agree with the direct call to the solver's tolerance.
  const auto root = scenario("taylor") / "model";
  Model direct(root);
  const int64_t n = 9;
  at::manual_seed(13);
  const TensorMap in{{"deformation_rate", 1e-3 * at::randn({n, 6}, f64())},
                     {"vorticity", 1e-3 * at::randn({n, 3}, f64())},
                     {"elastic_strain~1", at::zeros({n, 6}, f64())},
                     {"t", at::ones({n}, f64())},
                     {"t~1", at::zeros({n}, f64())},
                     {"orientation~1", 0.8 * (at::rand({n, 3}, f64()) - 0.5)},
                     {"slip_hardening~1", at::zeros({n}, f64())}};
  const auto ref = direct.forward(in);
  EXPECT(ref.at("elastic_strain").abs().max().item<double>() > 1e-5);
  const auto ref_jac = direct.jacobian(in);
  for (int64_t bs : {0, 2, 4, 9})
  {
    DispatchedModel d(root, simple(bs));
    expect_equal(d.forward(in), ref, 1e-10);
    const auto jac = d.jacobian(in);
    expect_equal(jac.first, ref_jac.first, 1e-10);
    expect_equal(jac.second, ref_jac.second, 1e-10);
  }
}

TEST_CASE(newton_reports_through_log_sink)
{
  // The compiled Newton solver logs on channel newton of neml2/csrc/aoti/log.h: a host default
  // level (no NEML2_LOGS) and a host sink see its lines.
  unsetenv("NEML2_LOGS");
  log::apply_env();
  std::vector<std::string> lines;
  log::set_sink([&](log::Level, const std::string & line) { lines.push_back(line); });
  log::set_default_level(log::Channel::Newton, log::Level::Info);
  DispatchedModel d(scenario("scalar_implicit") / "model", simple(0));
  d.forward(ode_inputs(4));
  const auto n = lines.size();
  log::reset_defaults(); // back to warning: the next solve is silent
  d.forward(ode_inputs(4));
  log::reset_sink();
  EXPECT(n >= 2 && lines.size() == n);
  const std::string begin = "[neml2:newton ][info] ---- begin newton solve ----";
  const std::string end = "[neml2:newton ][info] ---- end newton solve ----";
  EXPECT(lines.front() == begin && lines.back() == end);
  EXPECT(std::count(lines.begin(), lines.end(), begin) ==
         std::count(lines.begin(), lines.end(), end));
}

TEST_CASE(solver_config_reaches_every_copy)
{
  const auto root = scenario("scalar_implicit") / "model";
  DispatchedModel d(root, simple(4));
  auto config = d.solver_config();
  config.miters = 2;
  config.atol = 1e-300;
  config.rtol = 1e-300;
  d.set_solver_config(config);
  EXPECT(d.solver_config().miters == 2);
  // Two Newton iterations cannot reach a 1e-300 tolerance: a recoverable ConvergenceError.
  EXPECT_THROWS(ConvergenceError, d.forward(ode_inputs(B)), "");
}

TEST_CASE(load_model_from_stub)
{
  const auto stub = scenario("elasticity") / "model_aoti.i";
  auto d = load_model(stub, "model", simple(4));
  Model direct(scenario("elasticity") / "model");
  const auto in = strain_inputs(B);
  expect_equal(d.forward(in), direct.forward(in), 0);
  EXPECT(d.dtype() == c10::kDouble && d.input_names() == direct.input_names());
  auto by_default = load_model(stub, "model");
  expect_equal(by_default.forward(in), direct.forward(in), 0);
  EXPECT_THROWS(FatalError, load_model(stub, "missing"), "no block [Models]/[missing]");
}

TEST_CASE(bad_calls_are_fatal)
{
  const auto root = scenario("elasticity") / "model";
  DispatchedModel d(root, simple(4));
  EXPECT_THROWS(FatalError, d.forward({}), "no inputs");
  EXPECT_THROWS(
      FatalError,
      d.forward({{"strain", at::rand({5, 6}, f64())}}, {{"model.E", at::rand({3}, f64())}}),
      "");
  // the caller's whole batch is checked before it is cut: messages show its shapes, not a chunk's
  EXPECT_THROWS(FatalError,
                d.forward({{"strain", at::rand({5, 5}, f64())}}),
                "input 'strain': non-canonical shape [5, 5]");
  EXPECT_THROWS(FatalError,
                d.param_jacobian({{"strain", at::rand({5, 5}, f64())}}),
                "input 'strain': non-canonical shape [5, 5]");
  DispatchedModel ode(scenario("scalar_implicit") / "model", simple(2));
  auto mismatched = ode_inputs(5);
  mismatched["t"] = at::rand({3}, f64());
  EXPECT_THROWS(FatalError, ode.forward(mismatched), "batch shape [3] does not broadcast");
  mismatched.erase("t");
  EXPECT_THROWS(FatalError, ode.forward(mismatched), "missing input 't'");
  auto hybrid = std::make_shared<StaticHybridScheduler>(std::vector<c10::Device>{c10::kCPU},
                                                        std::vector<int64_t>{5});
  EXPECT_THROWS(FatalError, DispatchedModel(std::make_unique<Model>(root), hybrid), "synchronous");
  DispatchedModel wrapped(std::make_unique<Model>(root), simple(3));
  Model direct(root);
  const auto in = strain_inputs(B);
  expect_equal(wrapped.forward(in), direct.forward(in), 0);
  EXPECT_THROWS(FatalError, DispatchedModel(root, nullptr), "scheduler is null");
}

TEST_CASE(sub_batch_model_chunks_only_batch_axes)
{
  // The sub_batch scenario: x (*B, 3) and y (*B, 3) carry a sub-batch of 3 sites, strain/stress
  // are plain batch. Chunking must cut the batch axis only, never the site axis of x (issue #27).
  const auto root = scenario("sub_batch") / "model";
  Model direct(root);
  for (int64_t batch : {5, 3})
  {
    at::manual_seed(5);
    const TensorMap in{{"x", 0.5 + at::rand({batch, 3}, f64())},
                       {"strain", 1e-3 * (at::rand({batch, 6}, f64()) - 0.5)}};
    const auto ref = direct.forward(in);
    EXPECT(ref.at("y").sizes() == (std::vector<int64_t>{batch, 3}));
    EXPECT(at::allclose(ref.at("y"), -2.0 * in.at("x") * in.at("x"), 1e-14, 0.0));
    const auto ref_jac = direct.jacobian(in);
    // dy/dx is site-diagonal: one derivative per site, (*B, 3), not the (*B, 3, 3) matrix
    EXPECT(direct.jacobian_block_shape("y", "x") == (std::vector<int64_t>{3}));
    EXPECT(at::allclose(ref_jac.second.at("y").at("x"), -4.0 * in.at("x"), 1e-14, 0.0));
    // the jvp contracts the full per-site matrix with the tangent
    const auto tx = at::rand({batch, 3}, f64());
    EXPECT(at::allclose(
        direct.jvp(in, {{"x", tx}}).second.at("y"), -4.0 * in.at("x") * tx, 1e-14, 0.0));
    const auto ref_pjac = direct.param_jacobian(in);
    std::vector<std::shared_ptr<WorkScheduler>> schedulers{simple(2), simple(1), simple(0)};
    schedulers.push_back(std::make_shared<StaticHybridScheduler>(
        std::vector<c10::Device>{c10::kCPU}, std::vector<int64_t>{2}, std::vector<int64_t>{4}));
    for (const auto & scheduler : schedulers)
    {
      DispatchedModel d(root, scheduler);
      expect_equal(d.forward(in), ref, 0);
      const auto jac = d.jacobian(in);
      expect_equal(jac.first, ref_jac.first, 0);
      expect_equal(jac.second, ref_jac.second, 0);
      expect_equal(d.jvp(in, {{"x", tx}}).second, direct.jvp(in, {{"x", tx}}).second, 0);
      const auto pjac = d.param_jacobian(in);
      expect_equal(pjac.first, ref_pjac.first, 0);
      expect_equal(pjac.second, ref_pjac.second, 0);
    }
  }
  // x at its bare sub-batch shape (3,) is batch-less: it broadcasts against every chunk.
  at::manual_seed(6);
  const TensorMap shared{{"x", 0.5 + at::rand({3}, f64())},
                         {"strain", 1e-3 * (at::rand({5, 6}, f64()) - 0.5)}};
  DispatchedModel d(root, simple(2));
  expect_equal(d.forward(shared), direct.forward(shared), 0);
  expect_equal(d.jacobian(shared).second, direct.jacobian(shared).second, 0);
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
