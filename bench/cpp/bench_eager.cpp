// cpp-eager cell: neml2::eager::load_model(<model> = input file, "model"), CPython embedded
// (VIRTUAL_ENV selects the environment whose neml2 it imports).
#include <memory>

#include "bench_cell.h"
#include "neml2/csrc/eager/load_model.h"

namespace
{
// neml2::eager::Model is neither copyable nor movable: construct it in place from the factory.
struct Holder
{
  explicit Holder(const std::string & file)
    : model(neml2::eager::load_model(file, "model"))
  {
  }
  neml2::eager::Model model;
};
} // namespace

int
main(int argc, char ** argv)
{
  return bench::run_cell(argc,
                         argv,
                         [](const std::string & file)
                         {
                           auto h = std::make_shared<Holder>(file);
                           return std::shared_ptr<neml2::eager::Model>(h, &h->model);
                         });
}
