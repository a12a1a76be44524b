// Route parity cpp-eager vs cpp-aoti: the same scenario input file, loaded by
// neml2::eager::load_model and compiled (neml2-compile, $NEML2_TEST_ARTIFACTS) for
// neml2::aoti::Model, gives the same forward / jvp / jacobian. The host code is shared: only the
// load call differs. Exit code 77 (ctest SKIP) says exactly what is missing when the artifacts
// are not available.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <set>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/eager/load_model.h"
#include "scenarios.h"

using namespace neml2;
namespace fs = std::filesystem;

namespace
{
[[noreturn]] void
skip(const std::string & why)
{
  std::cout << "SKIPPED: " << why << "\n";
  std::exit(77);
}

/// The artifact root of `scenario`: $NEML2_TEST_ARTIFACTS/<scenario>[/<name>] (metadata.json).
fs::path
artifact_root(const std::string & scenario)
{
  const char * env = std::getenv("NEML2_TEST_ARTIFACTS");
  if (!env || !*env)
    skip("NEML2_TEST_ARTIFACTS is not set (run `python -m neml2.aoti.compile.testing DIR` first); "
         "cpp-aoti parity of '" +
         scenario + "' not checked");
  const fs::path dir = fs::path(env) / scenario;
  if (fs::exists(dir / "metadata.json"))
    return dir;
  if (fs::is_directory(dir))
    for (const auto & entry : fs::directory_iterator(dir))
      if (fs::exists(entry.path() / "metadata.json"))
        return entry.path();
  skip("no artifact (metadata.json) under " + dir.string());
}

/// forward, jvp and jacobian of any route's model on the scenario inputs: the host code both
/// routes share (only the Model type differs).
template <typename M>
struct Results
{
  aoti::TensorMap y, dy;
  aoti::VariablePairJacobian J;

  /// Tangents only for `differentiated` inputs: cpp-aoti ignores the others (its jvp contracts
  /// the compiled pairs only; docs/design/runtime.md, "Jacobian and JVP").
  Results(M & m, const std::set<std::string> & differentiated)
  {
    const auto x = scenarios::inputs(m.input_names(), m.input_base_shapes(), 5, 7);
    y = m.forward(x);
    auto dx = scenarios::tangents(x, 11);
    for (auto it = dx.begin(); it != dx.end();)
      it = differentiated.count(it->first) ? std::next(it) : dx.erase(it);
    dy = m.jvp(x, dx).second;
    J = m.jacobian(x).second;
  }
};

void
check_route_parity(const std::string & scenario)
{
  const fs::path root = artifact_root(scenario);
  const fs::path input = fs::path(NEML2_SCENARIOS) / (scenario + ".i");
  if (!fs::exists(input))
    skip("scenario input " + input.string() + " is missing");
  aoti::Model compiled(root);
  auto eager = eager::load_model(input, root.filename().string());
  EXPECT(compiled.input_names() == eager.input_names());
  EXPECT(compiled.output_names() == eager.output_names());
  EXPECT(compiled.input_base_shapes() == eager.input_base_shapes());
  EXPECT(compiled.output_base_shapes() == eager.output_base_shapes());

  std::set<std::string> differentiated;
  for (const auto & pair : compiled.derivatives())
    differentiated.insert(pair.second);
  const Results<aoti::Model> a(compiled, differentiated);
  const Results<eager::Model> e(eager, differentiated);
  const double tol = 1e-10;
  for (const auto & [o, y] : a.y)
    scenarios::expect_close(y, e.y.at(o), scenario + " forward " + o, tol, 1e-12);
  // cpp-aoti differentiates only the compiled pairs: compare exactly those (the jvp of an
  // output sums over its own compiled inputs: taylor compiles no d elastic_strain/d orientation~1)
  const auto x = scenarios::inputs(eager.input_names(), eager.input_base_shapes(), 5, 7);
  const auto dx = scenarios::tangents(x, 11);
  for (const auto & [o, dy] : a.dy)
  {
    aoti::TensorMap own;
    for (const auto & [out, in] : compiled.derivatives())
      if (out == o)
        own[in] = dx.at(in);
    scenarios::expect_close(dy, eager.jvp(x, own).second.at(o), scenario + " jvp " + o, tol, 1e-12);
  }
  std::size_t blocks = 0;
  for (const auto & [o, row] : a.J)
    for (const auto & [i, block] : row)
    {
      const auto & full = e.J.at(o).at(i);
      scenarios::expect_close(
          block.expand(full.sizes()), full, scenario + " J " + o + "/" + i, tol, 1e-12);
      ++blocks;
    }
  // Parameter derivatives of the compiled (out, param) pairs; the names agree across routes.
  std::size_t pblocks = 0;
  if (!compiled.parameter_derivatives().empty())
  {
    const auto x = scenarios::inputs(compiled.input_names(), compiled.input_base_shapes(), 5, 7);
    const auto [ya, pa] = compiled.param_jacobian(x);
    const auto [ye, pe] = eager.param_jacobian(x);
    for (const auto & [name, value] : ya)
      scenarios::expect_close(
          value, ye.at(name), scenario + " param_jacobian value " + name, tol, 1e-12);
    for (const auto & [o, row] : pa)
      for (const auto & [p, block] : row)
      {
        const auto & full = pe.at(o).at(p);
        scenarios::expect_close(
            block.expand(full.sizes()), full, scenario + " dparam " + o + "/" + p, tol, 1e-12);
        ++pblocks;
      }
  }
  std::cout << scenario << ": forward, jvp, " << blocks << " Jacobian block(s) and " << pblocks
            << " parameter block(s) agree\n";
}
} // namespace

TEST_CASE(route_parity_elasticity)
{
  check_route_parity("elasticity");
}

TEST_CASE(route_parity_scalar_implicit)
{
  check_route_parity("scalar_implicit");
}

TEST_CASE(route_parity_chaboche)
{
  check_route_parity("chaboche");
}

TEST_CASE(route_parity_taylor)
{
  // crystal plasticity: 12 slip systems on a sub-batch axis inside the implicit solve
  check_route_parity("taylor");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
