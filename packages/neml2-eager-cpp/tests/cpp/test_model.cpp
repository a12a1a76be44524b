// neml2::eager::Model from a pure C++ host (linking libpython itself): py-eager parity of
// forward / jvp / jacobian on three scenarios, parameter derivatives, sub-batch variables,
// error normalization and concurrent calls.
#include <Python.h>

#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/eager/load_model.h"
#include "neml2/csrc/eager/python.h"
#include "scenarios.h"

using namespace neml2;
using scenarios::expect_close;
using scenarios::input_file;
using TensorMap = aoti::TensorMap;

namespace
{
/// forward, jvp and jacobian of `name` against the py-eager reference (eager_reference.py).
void
check_parity(const std::string & name, int64_t batch)
{
  auto m = eager::load_model(input_file(name), "model");
  const auto x = scenarios::inputs(m.input_names(), m.input_base_shapes(), batch, 7);
  const auto dx = scenarios::tangents(x, 11);

  const auto ref = eager::call("reference", "eager_reference", name + "__forward", x);
  const auto y = m.forward(x);
  EXPECT(y.size() == m.output_names().size());
  for (const auto & o : m.output_names())
    expect_close(y.at(o), ref.at(o), name + " forward " + o);

  auto jvp_args = x;
  for (const auto & [n, t] : dx)
    jvp_args["d:" + n] = t;
  const auto ref_jvp = eager::call("reference", "eager_reference", name + "__jvp", jvp_args);
  const auto [y2, dy] = m.jvp(x, dx);
  for (const auto & o : m.output_names())
  {
    expect_close(y2.at(o), ref_jvp.at(o), name + " jvp value " + o);
    expect_close(dy.at(o), ref_jvp.at("d:" + o), name + " jvp " + o);
  }

  const auto ref_jac = eager::call("reference", "eager_reference", name + "__jacobian", x);
  const auto [y3, J] = m.jacobian(x);
  for (const auto & o : m.output_names())
  {
    expect_close(y3.at(o), ref_jac.at(o), name + " jacobian value " + o);
    EXPECT(J.at(o).size() == m.input_names().size());
    for (const auto & i : m.input_names())
      expect_close(J.at(o).at(i), ref_jac.at("J:" + o + ":" + i), name + " J " + o + "/" + i);
  }
}

/// Real root of 2 dt x^3 + x - xn = 0 (Cardano; one real root since the linear term is > 0).
at::Tensor
cubic_root(const at::Tensor & xn, const at::Tensor & dt)
{
  const auto p = 1.0 / (2 * dt), q = -xn / (2 * dt);
  const auto s = at::sqrt(q * q / 4 + p * p * p / 27);
  auto cbrt = [](const at::Tensor & v) { return at::sign(v) * at::pow(at::abs(v), 1.0 / 3.0); };
  return cbrt(-q / 2 + s) + cbrt(-q / 2 - s);
}
} // namespace

TEST_CASE(parity_elasticity)
{
  check_parity("elasticity", 5);
}

TEST_CASE(parity_scalar_implicit)
{
  check_parity("scalar_implicit", 5);
}

TEST_CASE(parity_chaboche)
{
  check_parity("chaboche", 4);
}

TEST_CASE(metadata)
{
  auto m = eager::load_model(input_file("elasticity"), "model");
  EXPECT(m.input_names() == std::vector<std::string>{"strain"});
  EXPECT(m.output_names() == std::vector<std::string>{"stress"});
  EXPECT(m.input_base_shapes() == aoti::BaseShapes{{6}});
  EXPECT(m.output_base_shapes() == aoti::BaseShapes{{6}});
  EXPECT(m.input_types() == std::vector<std::string>{"SR2"});
  EXPECT(m.input_sub_batch_shapes() == aoti::BaseShapes{{}});
  EXPECT(m.device() == c10::Device(c10::kCPU));
  EXPECT(m.dtype() == c10::kDouble);
  const auto shapes = m.parameter_base_shapes();
  EXPECT(shapes.size() == 2 && shapes.at("model.E").empty() && shapes.at("model.nu").empty());
  // A float32 load: parameters and the boundary dtype follow.
  eager::LoadOptions f32;
  f32.device = c10::Device(c10::kCPU);
  f32.dtype = c10::kFloat;
  auto m32 = eager::load_model(input_file("elasticity"), "model", f32);
  EXPECT(m32.dtype() == c10::kFloat);
  EXPECT(m32.named_parameters().at("model.E").scalar_type() == c10::kFloat);
}

TEST_CASE(batchless_inputs_broadcast)
{
  auto m = eager::load_model(input_file("elasticity"), "model");
  const auto e = at::randn({6}, at::kDouble);
  const auto y = m.forward({{"strain", e}});
  // batch-less in, batch-less out, as on every route (NEML2 v3)
  EXPECT(y.at("stress").sizes() == (std::vector<int64_t>{6}));
  expect_close(y.at("stress"), m.forward({{"strain", e.expand({3, 6})}}).at("stress")[2], "b0");
}

TEST_CASE(named_parameters_are_a_copy)
{
  auto m = eager::load_model(input_file("elasticity"), "model");
  auto p = m.named_parameters();
  const double E = p.at("model.E").item<double>();
  p.at("model.E").fill_(1.0);
  EXPECT(m.named_parameters().at("model.E").item<double>() == E);
  const auto x = at::randn({2, 6}, at::kDouble);
  const auto y = m.forward({{"strain", x}}).at("stress");
  m.set_parameter("model.E", at::scalar_tensor(2 * E, at::kDouble));
  expect_close(m.forward({{"strain", x}}).at("stress"), 2 * y, "stress at 2E");
  EXPECT_THROWS(aoti::FatalError,
                m.set_parameter("model.G", at::scalar_tensor(1.0, at::kDouble)),
                "neml2::eager::Model::set_parameter: ValueError: unknown parameter 'model.G'; "
                "parameters: ['model.E', 'model.nu']");
}

TEST_CASE(parameter_derivatives)
{
  auto m = eager::load_model(input_file("elasticity"), "model");
  const auto x = TensorMap{{"strain", 1e-3 * at::randn({3, 6}, at::kDouble)}};
  const auto y = m.forward(x).at("stress");
  const auto p = m.named_parameters();
  const auto [y_pj, J] = m.param_jacobian(x); // NEML2 v3's {outputs, P}
  expect_close(y_pj.at("stress"), y, "param_jacobian outputs");
  // stress is linear in E: d stress / d E = stress / E.
  expect_close(J.at("stress").at("model.E"), y / p.at("model.E"), "dstress/dE");
  // d stress / d nu by central differences through set_parameter.
  const double nu = p.at("model.nu").item<double>(), h = 1e-6;
  m.set_parameter("model.nu", at::scalar_tensor(nu + h, at::kDouble));
  const auto yp = m.forward(x).at("stress");
  m.set_parameter("model.nu", at::scalar_tensor(nu - h, at::kDouble));
  const auto ym = m.forward(x).at("stress");
  m.set_parameter("model.nu", at::scalar_tensor(nu, at::kDouble));
  expect_close(J.at("stress").at("model.nu"), (yp - ym) / (2 * h), "dstress/dnu", 1e-6, 1e-9);
  // param_vjp = sum over the batch of <w, J>.
  const auto w = at::randn({3, 6}, at::kDouble);
  const auto g = m.param_vjp(x, {{"stress", w}});
  for (const auto * n : {"model.E", "model.nu"})
    expect_close(g.at(n), (w * J.at("stress").at(n)).sum(), std::string("vjp ") + n);
}

TEST_CASE(implicit_parameter_derivatives)
{
  // r = x - x~1 - dt s x^3 (s = scaling = -2): by the implicit function theorem
  // dx/ds = -(dr/dx)^-1 dr/ds = dt x^3 / (1 - 3 dt s x^2).
  auto m = eager::load_model(input_file("scalar_implicit"), "model");
  const auto x = scenarios::inputs(m.input_names(), m.input_base_shapes(), 4, 3);
  const auto sol = m.forward(x).at("x");
  const auto [x_pj, J] = m.param_jacobian(x);
  expect_close(x_pj.at("x"), sol, "param_jacobian outputs", 1e-12, 1e-14);
  const std::string s = "implicit_rate.rate.scaling";
  const double sv = m.named_parameters().at(s).item<double>();
  const auto dt = x.at("t") - x.at("t~1");
  const auto want = dt * sol.pow(3) / (1 - 3 * dt * sv * sol.pow(2));
  expect_close(J.at("x").at(s), want, "dx/dscaling", 1e-10, 1e-12);
}

TEST_CASE(sub_batch_variables)
{
  // Compared with Cardano's root to 1e-10: Newton's default stop (|r| <= 1e-10 or 1e-8 |r0|)
  // guarantees only ~1e-8 in x, so the solve is asked for 1e-12.
  eager::LoadOptions tight;
  tight.overrides = {"Solvers/newton/abs_tol:=1e-12", "Solvers/newton/rel_tol:=1e-12"};
  auto m = eager::load_model(input_file("sub_batch_implicit"), "model", tight);
  EXPECT(m.input_names() == (std::vector<std::string>{"x", "x~1", "t", "t~1"}));
  EXPECT(m.input_sub_batch_shapes() == (aoti::BaseShapes{{3}, {3}, {}, {}}));
  EXPECT(m.output_sub_batch_shapes() == aoti::BaseShapes{{3}});
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
  const auto xn = 0.5 + 1.5 * at::rand({2, 3}, gen, opts);
  const auto t = at::full({2}, 0.6, opts), tn = at::tensor({0.1, 0.2}, opts);
  const TensorMap in{{"x", at::ones({3}, opts)}, {"x~1", xn}, {"t", t}, {"t~1", tn}};
  const auto dt = (t - tn).unsqueeze(-1);
  const auto want = cubic_root(xn, dt);
  const auto y = m.forward(in).at("x");
  expect_close(y, want, "per-site root", 1e-10, 1e-12);
  // Sites are independent: dx_s/dx~1_s = 1 / (6 dt x_s^2 + 1) on the site diagonal, 0 off it.
  const auto [y2, J] = m.jacobian(in);
  const auto jx = J.at("x").at("x~1");
  EXPECT(jx.sizes() == (std::vector<int64_t>{2, 3, 3}));
  expect_close(at::diagonal(jx, 0, -2, -1), 1.0 / (6 * dt * want * want + 1), "diag", 1e-10);
  expect_close(jx * (1 - at::eye(3, opts)), at::zeros({2, 3, 3}, opts), "off-diagonal");
  // The trailing (sub-batch, base) axes are checked: 4 sites where 3 are declared.
  EXPECT_THROWS(
      aoti::FatalError,
      m.forward(
          {{"x", at::ones({3}, opts)}, {"x~1", at::ones({2, 4}, opts)}, {"t", t}, {"t~1", tn}}),
      "input 'x~1': non-canonical shape [2, 4], expected trailing shape [3] (sub-batch shape [3], "
      "base shape []");
}

TEST_CASE(undeclared_sub_batch_is_fatal)
{
  // Only x~1 declares its sites: the plain-batch guess x cannot carry them.
  auto m = eager::load_model(input_file("sub_batch_implicit_undeclared"), "model");
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  EXPECT_THROWS(aoti::FatalError,
                m.forward({{"x", at::ones({2}, opts)},
                           {"x~1", at::ones({2, 3}, opts)},
                           {"t", at::ones({2}, opts)},
                           {"t~1", at::zeros({2}, opts)}}),
                "expected sub-batch shape (3,)");
}

TEST_CASE(bad_inputs_are_fatal)
{
  auto m = eager::load_model(input_file("elasticity"), "model");
  EXPECT_THROWS(aoti::FatalError,
                m.forward({{"strain", at::zeros({4, 1}, at::kDouble)}}),
                "neml2::eager::Model::forward: FatalError: input 'strain': non-canonical shape "
                "[4, 1], expected trailing base shape [6]");
  EXPECT_THROWS(aoti::FatalError,
                m.forward({{"strain", at::zeros({4, 6}, at::kFloat)}}),
                "neml2::eager::Model::forward: FatalError: input 'strain' has dtype Float but "
                "the model expects Double (inputs are never cast)");
  EXPECT_THROWS(aoti::FatalError, m.forward({}), "missing input 'strain'");
  EXPECT_THROWS(aoti::FatalError,
                m.jvp({{"strain", at::zeros({4, 6}, at::kDouble)}},
                      {{"strain", at::zeros({4, 5}, at::kDouble)}}),
                "neml2::eager::Model::jvp: FatalError: tangent 'strain': non-canonical shape");
  try
  {
    m.forward({{"strain", at::zeros({4, 1}, at::kDouble)}});
  }
  catch (const aoti::Exception & e)
  {
    EXPECT(!e.recoverable());
  }
}

// NEML2 v3: load_model(file, name, load) / Model(file, name, device_override, load) import the
// `load` extensions (a .py path, a package directory or a dotted module) before the model is
// built; the evaluation members are const; a braced list picks the v3 overload.
static_assert(std::is_same_v<decltype(eager::load_model("f.i", "m", {"ext.py"})), eager::Model>);
static_assert(std::is_same_v<decltype(eager::load_model("f.i", "m", {})), eager::Model>);
static_assert(std::is_constructible_v<eager::Model,
                                      std::string,
                                      std::string,
                                      std::optional<c10::Device>,
                                      std::vector<std::string>>);
static_assert(std::is_constructible_v<eager::Model, std::string, std::string, eager::LoadOptions>);
static_assert(std::is_same_v<decltype(std::declval<const eager::Model &>().param_jacobian({})),
                             std::pair<TensorMap, aoti::VariablePairJacobian>>);

TEST_CASE(load_imports_python_extensions)
{
  const auto file = scenarios::test_input_file("user_ext");
  const auto ext = std::string(NEML2_EAGER_TEST_INPUTS) + "/user_ext.py";
  // without the extension the type is unknown
  EXPECT_THROWS(aoti::FatalError,
                eager::load_model(file, "model"),
                "Type 'EagerUserAffine' is not registered");
  const auto m = eager::load_model(file, "model", {ext});
  EXPECT(m.device() == c10::Device(c10::kCPU) && m.dtype() == c10::kDouble);
  const auto x = at::tensor({2.0, 4.0}, at::kDouble);
  expect_close(m.forward({{"x", x}}).at("y"), 0.5 * x + 1.0, "affine forward");
  const auto [y, P] = m.param_jacobian({{"x", x}});
  expect_close(y.at("y"), 0.5 * x + 1.0, "affine param_jacobian outputs");
  expect_close(P.at("y").at("model.a"), x, "d y / d a");
  const auto [yj, J] = m.jacobian({{"x", x}});
  expect_close(J.at("y").at("x"), at::full({2}, 0.5, at::kDouble), "d y / d x");
  // a dotted module name (this folder is on PYTHONPATH) and a repeated load; v3's constructor
  const eager::Model dotted(file, "dotted", std::nullopt, {"eager_user_ext", ext, ext});
  expect_close(dotted.forward({{"x", x}}).at("y"), 4.0 * x, "dotted forward");
  const eager::Model on_cpu(file, "dotted", c10::Device(c10::kCPU));
  EXPECT(on_cpu.device() == c10::Device(c10::kCPU));
  // LoadOptions reaches the same loader with a dtype and overrides
  eager::LoadOptions o;
  o.dtype = c10::kFloat;
  o.overrides = {"Models/model/a:=3"};
  o.load = {ext};
  const auto m32 = eager::load_model(file, "model", o);
  EXPECT(m32.dtype() == c10::kFloat);
  const auto x32 = x.to(at::kFloat);
  expect_close(m32.forward({{"x", x32}}).at("y"), 3.0 * x32 + 1.0, "LoadOptions forward");
  // a missing extension is a fatal load error
  EXPECT_THROWS(aoti::FatalError,
                eager::load_model(file, "model", {"no_such_ext.py"}),
                "neml2::eager::Model::load_model: FileNotFoundError: --load no_such_ext.py");
}

TEST_CASE(load_errors_are_fatal)
{
  const std::string op = "neml2::eager::Model::load_model: ";
  EXPECT_THROWS(aoti::FatalError,
                eager::load_model(input_file("elasticity"), "nomodel"),
                op + "MissingBlockError: No [Models/nomodel] found in");
  EXPECT_THROWS(aoti::FatalError,
                eager::load_model(scenarios::test_input_file("parse_error"), "model"),
                "parse_error.i:4:20: unterminated string: missing closing ' for field "
                "'coefficients'");
  EXPECT_THROWS(aoti::FatalError,
                eager::load_model(input_file("no_such_file"), "model"),
                op + "FileNotFoundError: input file '");
}

TEST_CASE(newton_failure_is_recoverable)
{
  eager::LoadOptions capped;
  capped.overrides = {"Solvers/newton/max_its:=2"};
  auto m = eager::load_model(input_file("scalar_implicit"), "model", capped);
  const auto x = scenarios::inputs(m.input_names(), m.input_base_shapes(), 3, 5);
  try
  {
    m.forward(x);
    check::fail(__FILE__, __LINE__, "no exception");
  }
  catch (const aoti::Exception & e)
  {
    EXPECT(e.recoverable());
    EXPECT(dynamic_cast<const aoti::ConvergenceError *>(&e) != nullptr);
    EXPECT(std::string(e.what()).find("Newton failed to converge in 2 iterations") !=
           std::string::npos);
  }
  // The model stays usable: the default iteration cap converges.
  auto ok = eager::load_model(input_file("scalar_implicit"), "model");
  EXPECT(ok.forward(x).at("x").isfinite().all().item<bool>());
}

TEST_CASE(two_threads_share_one_model)
{
  auto m = eager::load_model(input_file("scalar_implicit"), "model");
  std::vector<TensorMap> in;
  std::vector<at::Tensor> serial;
  for (uint64_t t = 0; t < 2; ++t)
  {
    in.push_back(scenarios::inputs(m.input_names(), m.input_base_shapes(), 8, 100 + t));
    serial.push_back(m.forward(in.back()).at("x"));
  }
  EXPECT(!at::equal(serial[0], serial[1]));
  std::vector<int> ok(2, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back(
        [&, t]
        {
          try
          {
            for (int i = 0; i < 25; ++i)
              if (!at::equal(m.forward(in[t]).at("x"), serial[t]))
                return;
            ok[t] = 1;
          }
          catch (const std::exception & e)
          {
            std::cerr << "thread " << t << ": " << e.what() << "\n";
          }
        });
  for (auto & th : threads)
    th.join();
  EXPECT(ok[0] == 1 && ok[1] == 1);
  EXPECT(PyGILState_Check() == 0);
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
