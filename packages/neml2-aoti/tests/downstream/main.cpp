// A downstream C++ host of neml2-aoti: find_package(neml2 CONFIG) + neml2::aoti.
// Throws across the library boundary and checks the exported typeinfo/vtables are used.
#include <cstdlib>
#include <iostream>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"

int
main()
{
  using namespace neml2::aoti;
  try
  {
    // Thrown inside libneml2.so (missing input), caught here through the base class.
    canonicalize_inputs({}, {"strain"}, {{6}}, at::kCPU, at::kDouble);
    std::cerr << "expected a FatalError\n";
    return EXIT_FAILURE;
  }
  catch (const Exception & e)
  {
    if (e.recoverable() || dynamic_cast<const FatalError *>(&e) == nullptr)
      return EXIT_FAILURE;
    std::cout << "caught FatalError: " << e.what() << "\n";
  }
  const ConvergenceError conv("diverged");
  const Exception & base = conv;
  if (!base.recoverable())
    return EXIT_FAILURE;
  auto out = canonicalize_inputs({{"strain", at::zeros({6}, at::kDouble)}}, {"strain"}, {{6}},
                                 at::kCPU, at::kDouble);
  if (out.values.at("strain").sizes() != at::IntArrayRef({1, 6}))
    return EXIT_FAILURE;
  std::cout << "downstream OK\n";
  return EXIT_SUCCESS;
}
