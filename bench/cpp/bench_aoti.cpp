// cpp-aoti cell: neml2::aoti::Model on a neml2-compile artifact (<model> = the artifact root).
#include <memory>

#include "bench_cell.h"
#include "neml2/csrc/aoti/Model.h"

int
main(int argc, char ** argv)
{
  return bench::run_cell(argc,
                         argv,
                         [](const std::string & root)
                         { return std::make_unique<neml2::aoti::Model>(root); });
}
