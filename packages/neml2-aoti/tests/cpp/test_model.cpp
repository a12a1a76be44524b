// neml2::aoti::Model against the shared scenario artifacts (env NEML2_TEST_ARTIFACTS) and py-eager
// reference values written by make_references.py (env NEML2_TEST_REFERENCES): route parity,
// parameters, convergence errors and concurrency. Bad inputs: test_model_errors.cpp.
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Model.h"
#include "reference.h"

using namespace neml2::aoti;

namespace
{
constexpr double kRtol = 1e-10;

void
expect_close(const at::Tensor & a, const at::Tensor & b, const std::string & what)
{
  std::string why;
  if (!reference::close(a, b, kRtol, &why))
    check::fail(__FILE__, __LINE__, what + ": " + why);
}

/// forward, jacobian, jvp and param_jacobian of the artifact against py-eager.
void
parity(const std::string & scenario)
{
  const auto refs = reference::load(scenario);
  Model m(reference::artifact(scenario));
  const auto inputs = reference::group(refs, "in");
  const auto outputs = m.forward(inputs);
  for (const auto & [name, ref] : reference::group(refs, "out"))
    expect_close(outputs.at(name), ref, scenario + " forward " + name);
  if (refs.count("iters"))
  {
    // the same convergence rules: C++ Newton takes as many updates as py-eager's
    setenv("NEML2_LOGS", "newton=info", 1);
    auto c = m.solver_config();
    c.collect_log = true;
    m.set_solver_config(c);
    m.forward(inputs);
    int64_t iters = -1;
    for (const auto & line : m.solver_log())
    {
      const auto pos = line.find("iters=");
      if (pos != std::string::npos)
        iters = std::stoll(line.substr(pos + 6));
    }
    if (iters != static_cast<int64_t>(refs.at("iters").item<double>()))
      check::fail(__FILE__,
                  __LINE__,
                  scenario + ": C++ Newton took " + std::to_string(iters) + " updates, py-eager " +
                      std::to_string(refs.at("iters").item<double>()));
    unsetenv("NEML2_LOGS");
    c.collect_log = false;
    m.set_solver_config(c);
  }
  const auto Jref = reference::group(refs, "J");
  if (!Jref.empty())
  {
    const auto [values, J] = m.jacobian(inputs);
    for (const auto & [name, ref] : reference::group(refs, "out"))
      expect_close(values.at(name), ref, scenario + " jacobian value " + name);
    EXPECT(!J.empty());
    for (const auto & [key, ref] : Jref)
    {
      const auto slash = key.find('/');
      const auto & block = J.at(key.substr(0, slash)).at(key.substr(slash + 1));
      expect_close(
          block.dim() < ref.dim() ? block.expand(ref.sizes()) : block, ref, scenario + " J " + key);
    }
    const auto [jv_values, jv] = m.jvp(inputs, reference::group(refs, "tan"));
    for (const auto & [name, ref] : reference::group(refs, "jvp"))
      expect_close(jv.at(name), ref, scenario + " jvp " + name);
  }
  const auto PJref = reference::group(refs, "PJ");
  if (!PJref.empty())
  {
    const auto [pj_values, PJ] = m.param_jacobian(inputs); // NEML2 v3's {outputs, P}
    for (const auto & [name, ref] : reference::group(refs, "out"))
      expect_close(pj_values.at(name), ref, scenario + " param_jacobian value " + name);
    for (const auto & [key, ref] : PJref)
    {
      const auto slash = key.find('/');
      expect_close(PJ.at(key.substr(0, slash)).at(key.substr(slash + 1)),
                   ref,
                   scenario + " param_jacobian " + key);
    }
  }
}

/// Inputs of a scenario from its reference file.
TensorMap
inputs_of(const std::string & scenario)
{
  return reference::group(reference::load(scenario), "in");
}
} // namespace

TEST_CASE(parity_elasticity)
{
  parity("elasticity");
}
TEST_CASE(parity_scalar_implicit)
{
  parity("scalar_implicit");
}
TEST_CASE(parity_chaboche)
{
  parity("chaboche");
}
TEST_CASE(parity_taylor)
{
  parity("taylor");
}
TEST_CASE(parity_sub_batch)
{
  parity("sub_batch");
}

TEST_CASE(float32_leaf)
{
  // a genuinely float32 leaf (when built) agrees with py-eager's float64 values to 1e-5
  const auto root = reference::artifact("elasticity");
  if (!std::filesystem::is_directory(root / "cpu" / "float32"))
    throw check::Skip("no cpu/float32 leaf in " + root.string());
  const auto refs = reference::load("elasticity");
  Model m(root, c10::kCPU, c10::kFloat);
  EXPECT(m.dtype() == c10::kFloat);
  EXPECT(m.named_parameters().at("model.E").scalar_type() == c10::kFloat);
  TensorMap in;
  for (const auto & [k, v] : reference::group(refs, "in"))
    in[k] = v.to(at::kFloat);
  const auto out = m.forward(in);
  for (const auto & [name, ref] : reference::group(refs, "out"))
  {
    EXPECT(out.at(name).scalar_type() == at::kFloat);
    std::string why;
    if (!reference::close(out.at(name).to(at::kDouble), ref, 1e-5, &why))
      check::fail(__FILE__, __LINE__, "float32 " + name + ": " + why);
  }
}

TEST_CASE(surface)
{
  Model m(reference::artifact("elasticity"));
  EXPECT(m.input_names() == std::vector<std::string>{"strain"});
  EXPECT(m.output_names() == std::vector<std::string>{"stress"});
  EXPECT(m.input_base_shapes() == BaseShapes{{6}});
  EXPECT(m.output_base_shapes() == BaseShapes{{6}});
  EXPECT(m.input_types() == std::vector<std::string>{"SR2"});
  EXPECT(m.device() == c10::Device(c10::kCPU));
  EXPECT(m.dtype() == c10::kDouble);
  EXPECT(m.parameter_base_shapes().at("model.E").empty());
  EXPECT(m.named_parameters().count("model.E") == 1);
}

TEST_CASE(batchless_input_gives_batchless_output)
{
  Model m(reference::artifact("elasticity"));
  const auto strain = inputs_of("elasticity").at("strain");
  const auto one = m.forward({{"strain", strain[2]}}).at("stress");
  EXPECT(one.sizes() == at::IntArrayRef({6}));
  const auto all = m.forward({{"strain", strain}}).at("stress");
  EXPECT(at::equal(one, all[2]));
}

TEST_CASE(empty_batch_gives_empty_outputs)
{
  Model m(reference::artifact("scalar_implicit"));
  TensorMap in;
  for (const auto & [k, v] : inputs_of("scalar_implicit"))
    in[k] = v.narrow(0, 0, 0);
  const auto out = m.forward(in);
  for (const auto & [k, v] : out)
    EXPECT(v.dim() >= 1 && v.size(0) == 0);
}

TEST_CASE(multi_dim_batch_and_broadcast)
{
  Model m(reference::artifact("scalar_implicit"));
  auto in = inputs_of("scalar_implicit");
  const auto ref = m.forward(in).at("x");
  // (5,) batch viewed as (5, 1) with a broadcast time of shape (1,)
  TensorMap in2;
  for (const auto & [k, v] : in)
    in2[k] = v.unsqueeze(-1);
  in2["t~1"] = at::zeros({1}, at::kDouble);
  const auto x = m.forward(in2).at("x");
  EXPECT(x.sizes() == at::IntArrayRef({5, 1}));
  expect_close(x.squeeze(-1), ref, "broadcast batch");
}

TEST_CASE(named_parameters_are_live)
{
  // stress is linear in E at fixed nu: doubling E doubles the stress
  Model m(reference::artifact("elasticity"));
  const auto in = inputs_of("elasticity");
  const auto s1 = m.forward(in).at("stress");
  m.named_parameters().at("model.E").mul_(2.0); // in place
  const auto s2 = m.forward(in).at("stress");
  expect_close(s2, 2.0 * s1, "in-place E edit");
  m.named_parameters()["model.E"] = m.named_parameters().at("model.E") * 0.5; // slot replacement
  expect_close(m.forward(in).at("stress"), s1, "slot replacement");
  // per-point E (batched) and per-call overrides
  const auto E0 = m.named_parameters().at("model.E");
  const auto scale = at::arange(1, 6, at::kDouble);
  m.set_parameter("model.E", E0 * scale);
  expect_close(m.forward(in).at("stress"), s1 * scale.unsqueeze(-1), "batched E");
  m.set_parameter("model.E", E0);
  expect_close(m.forward(in, {{"model.E", 3.0 * E0}}).at("stress"), 3.0 * s1, "override");
  expect_close(m.forward(in).at("stress"), s1, "override is per call");
}

// NEML2 v3 declares the evaluation members const and param_jacobian returns {outputs, P}.
static_assert(std::is_same_v<decltype(std::declval<const Model &>().forward({})), TensorMap>);
static_assert(std::is_same_v<decltype(std::declval<const Model &>().jvp({}, {})), JvpResult>);
static_assert(std::is_same_v<decltype(std::declval<const Model &>().jacobian({})), JacobianResult>);
static_assert(std::is_same_v<decltype(std::declval<const Model &>().param_jacobian({})),
                             std::pair<TensorMap, VariablePairJacobian>>);
static_assert(std::is_same_v<decltype(std::declval<const Model &>().param_vjp({}, {})), TensorMap>);

TEST_CASE(const_model_calls_and_param_jacobian_pair)
{
  Model owner(reference::artifact("elasticity"));
  const Model & m = owner; // a v3 host may hold the model by const reference
  const auto in = inputs_of("elasticity");
  const auto y = m.forward(in);
  const auto [values, P] = m.param_jacobian(in);
  EXPECT(values.size() == 1);
  expect_close(values.at("stress"), y.at("stress"), "param_jacobian outputs");
  const auto E = m.named_parameters().at("model.E");
  expect_close(P.at("stress").at("model.E"), y.at("stress") / E, "d stress / d E = stress / E");
  expect_close(m.jacobian(in).first.at("stress"), y.at("stress"), "jacobian outputs");
  const auto w = at::ones_like(y.at("stress"));
  expect_close(
      m.param_vjp(in, {{"stress", w}}).at("model.E"), (y.at("stress") / E).sum(), "param_vjp");
}

TEST_CASE(param_vjp_contracts_param_jacobian)
{
  Model m(reference::artifact("elasticity"));
  const auto in = inputs_of("elasticity");
  const auto PJ = m.param_jacobian(in).second.at("stress").at("model.E"); // (B, 6)
  const auto w = at::linspace(-1, 1, PJ.numel(), at::kDouble).reshape(PJ.sizes());
  const auto g = m.param_vjp(in, {{"stress", w}}).at("model.E");
  EXPECT(g.dim() == 0);
  expect_close(g, (w * PJ).sum(), "param_vjp global");
  // a batched parameter gets a per-element gradient
  m.set_parameter("model.E", m.named_parameters().at("model.E").expand({5}).clone());
  const auto gb = m.param_vjp(in, {{"stress", w}}).at("model.E");
  EXPECT(gb.sizes() == at::IntArrayRef({5}));
  expect_close(gb, (w * PJ).sum(-1), "param_vjp batched");
}

TEST_CASE(convergence_error_is_recoverable)
{
  for (const std::string scenario : {"scalar_implicit", "chaboche"})
  {
    Model m(reference::artifact(scenario));
    auto c = m.solver_config();
    c.atol = 0.0;
    c.rtol = 0.0;
    c.miters = 4;
    m.set_solver_config(c);
    bool caught = false;
    try
    {
      m.forward(inputs_of(scenario));
    }
    catch (const Exception & e)
    {
      caught = true;
      EXPECT(e.recoverable());
      EXPECT(dynamic_cast<const ConvergenceError *>(&e) != nullptr);
      // %e-style numbers: a zero tolerance reads 0.000000e+00, not a truncated fixed number
      EXPECT(std::string(e.what()).find("atol = 0.000000e+00") != std::string::npos);
      EXPECT(std::string(e.what()).find("4 iterations") != std::string::npos);
    }
    EXPECT(caught);
  }
}

TEST_CASE(newton_log_is_collected)
{
  Model m(reference::artifact("scalar_implicit"));
  auto c = m.solver_config();
  c.collect_log = true;
  m.set_solver_config(c);
  m.forward(inputs_of("scalar_implicit"));
  // NEML2_LOGS unset: nothing is traced, so nothing is collected
  EXPECT(m.solver_log().empty() == (std::getenv("NEML2_LOGS") == nullptr));
}

TEST_CASE(threads_with_own_models_match_serial)
{
  for (const std::string scenario : {"elasticity", "chaboche"})
  {
    const auto in = inputs_of(scenario);
    Model serial(reference::artifact(scenario));
    const auto ref = serial.forward(in);
    constexpr int N = 3;
    std::vector<TensorMap> results(N);
    std::vector<std::thread> threads;
    for (int k = 0; k < N; ++k)
      threads.emplace_back(
          [&, k]
          {
            Model own(reference::artifact(scenario));
            for (int r = 0; r < 3; ++r)
              results[k] = own.forward(in);
          });
    for (auto & t : threads)
      t.join();
    for (const auto & res : results)
      for (const auto & [name, v] : ref)
        EXPECT(at::equal(res.at(name), v));
  }
}

TEST_CASE(threads_sharing_one_model_are_serialized)
{
  // Documented: calls on one Model take its mutex, so concurrent calls are safe and give the
  // serial results.
  const auto in = inputs_of("chaboche");
  Model m(reference::artifact("chaboche"));
  const auto ref = m.forward(in);
  constexpr int N = 3;
  std::vector<TensorMap> results(N);
  std::vector<std::thread> threads;
  for (int k = 0; k < N; ++k)
    threads.emplace_back(
        [&, k]
        {
          for (int r = 0; r < 3; ++r)
            results[k] = m.jacobian(in).first;
        });
  for (auto & t : threads)
    t.join();
  for (const auto & res : results)
    for (const auto & [name, v] : ref)
      EXPECT(at::equal(res.at(name), v));
}

TEST_CASE(substepping_matches_chained_half_steps)
{
  // x - x~1 + 2 dt x^3 = 0 with x~1 = 1, dt = 100 from the guess x = 1: the masked solve (with
  // its step-size gate) needs 9 updates for the full step but 8 and fewer for its two halves,
  // so with miters = 9 and max_substepping_level = 1 the step is solved as two halves. The
  // result must equal the two half steps chained by hand through the plain model.
  reference::ArtifactCopy copy("scalar_implicit");
  copy.replace("\"max_substepping_level\": 0", "\"max_substepping_level\": 1");
  Model sub(copy.root);
  Model plain(reference::artifact("scalar_implicit"));
  auto c = plain.solver_config();
  c.miters = 9;
  plain.set_solver_config(c);
  sub.set_solver_config(c);
  const auto one = at::ones({1}, at::kDouble);
  const TensorMap full{{"x", one}, {"x~1", one}, {"t~1", 0 * one}, {"t", 100 * one}};
  const auto x = sub.forward(full).at("x");
  const auto h =
      plain.forward({{"x", one}, {"x~1", one}, {"t~1", 0 * one}, {"t", 50 * one}}).at("x");
  const auto e = plain.forward({{"x", h}, {"x~1", h}, {"t~1", 50 * one}, {"t", 100 * one}}).at("x");
  std::string why;
  if (!reference::close(x, e, 1e-9, &why))
    check::fail(__FILE__, __LINE__, "substepped vs chained half steps: " + why);
  // the substepped point is not the full-step root of x - 1 + 200 x^3 = 0
  EXPECT((x - 1 + 200 * x.pow(3)).abs().item<double>() > 1e-3);
  // one more halving is not enough at miters = 3: exhausted substepping is recoverable
  c.miters = 3;
  sub.set_solver_config(c);
  EXPECT_THROWS(ConvergenceError, sub.forward(full), "substepping exhausted");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
