// cpp-dispatch cell: neml2::aoti::DispatchedModel over SimpleScheduler{cpu, default_chunk_size}
// (what neml2::aoti::load_model uses by default) on a neml2-compile artifact root.
#include <memory>

#include "bench_cell.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/load_model.h"

int
main(int argc, char ** argv)
{
  return bench::run_cell(argc,
                         argv,
                         [](const std::string & root)
                         {
                           auto scheduler = std::make_shared<neml2::aoti::SimpleScheduler>(
                               c10::Device(c10::kCPU), neml2::aoti::default_chunk_size);
                           return std::make_unique<neml2::aoti::DispatchedModel>(root, scheduler);
                         });
}
