// A downstream C++ host of neml2-aoti: find_package(neml2 CONFIG) + neml2::aoti.
//
// Loads a compiled artifact (argv[1], else $NEML2_TEST_ARTIFACTS/chaboche/model), runs forward
// and jacobian, and catches a recoverable ConvergenceError (forced by an impossible tolerance)
// through the base class thrown across the library boundary. Also checks that a FatalError
// from libneml2.so is caught by its base class here (exported typeinfo/vtables).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/Model.h"

namespace
{
int
fail(const std::string & why)
{
  std::cerr << "downstream FAILED: " << why << "\n";
  return EXIT_FAILURE;
}
} // namespace

int
main(int argc, char ** argv)
{
  using namespace neml2::aoti;
  std::filesystem::path artifact;
  if (argc > 1)
    artifact = argv[1];
  else if (const char * dir = std::getenv("NEML2_TEST_ARTIFACTS"))
    artifact = std::filesystem::path(dir) / "chaboche" / "model";
  else
    return fail("pass an artifact folder or set NEML2_TEST_ARTIFACTS");

  // a FatalError thrown inside libneml2.so, caught through the base class
  try
  {
    Model missing(artifact / "does-not-exist");
    return fail("expected a FatalError for a missing artifact");
  }
  catch (const Exception & e)
  {
    if (e.recoverable() || dynamic_cast<const FatalError *>(&e) == nullptr)
      return fail("a missing artifact must be a non-recoverable FatalError");
    std::cout << "caught FatalError: " << e.what() << "\n";
  }

  Model model(artifact);
  const int64_t B = 4;
  TensorMap inputs;
  for (std::size_t i = 0; i < model.input_names().size(); ++i)
  {
    const auto & name = model.input_names()[i];
    auto shape = model.input_base_shapes()[i];
    shape.insert(shape.begin(), B);
    auto value = at::zeros(shape, at::kDouble);
    if (name == "t")
      value.fill_(1.0);
    else if (name == "strain")
      value.select(-1, 0).copy_(at::linspace(0.002, 0.01, B, at::kDouble));
    inputs[name] = value;
  }
  const auto outputs = model.forward(inputs);
  const auto [values, J] = model.jacobian(inputs);
  for (const auto & [name, value] : outputs)
  {
    if (value.size(0) != B || !at::isfinite(value).all().item<bool>())
      return fail("forward output '" + name + "' is malformed");
    if (!at::allclose(values.at(name), value, 1e-12, 1e-12))
      return fail("jacobian values differ from forward for '" + name + "'");
  }
  if (J.empty())
    return fail("the artifact has no compiled derivatives");
  for (const auto & [out, row] : J)
    for (const auto & [in, block] : row)
      std::cout << "J[" << out << "][" << in << "] " << block.sizes() << "\n";

  auto config = model.solver_config();
  config.atol = 0.0; // impossible: |b| < 0
  config.rtol = 0.0;
  config.miters = 3;
  model.set_solver_config(config);
  try
  {
    model.forward(inputs);
    return fail("expected a ConvergenceError with an impossible tolerance");
  }
  catch (const Exception & e)
  {
    if (!e.recoverable())
      return fail(std::string("a solver failure must be recoverable: ") + e.what());
    std::cout << "caught recoverable ConvergenceError: " << e.what() << "\n";
  }
  std::cout << "downstream OK\n";
  return EXIT_SUCCESS;
}
