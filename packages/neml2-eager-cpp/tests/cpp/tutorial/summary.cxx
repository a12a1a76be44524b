// NEML2 v3 tutorial "Model structure", C++: print the composed model's summary.
#include "neml2/neml2.h"

int
main()
{
  auto model = neml2::load_model("input.i", "eq");
  std::cout << *model << std::endl;
}
