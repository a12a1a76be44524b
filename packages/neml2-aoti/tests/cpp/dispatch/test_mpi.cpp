// Run under `mpirun -np 2`: one global batch split over the ranks by MPIScheduler (through the
// MPI plugin libneml2_mpi.so), evaluated by each rank's DispatchedModel, gathered, and equal to a
// single-process call. Without the plugin, or with one that cannot be loaded, the MPI entry
// points must say which.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/MPIScheduler.h"

using namespace neml2::aoti;

namespace
{
int g_argc = 0;
char ** g_argv = nullptr;
} // namespace

TEST_CASE(split_across_two_ranks)
{
  MPIEnvironment env(&g_argc, &g_argv);
  const char * dir = std::getenv("NEML2_DISPATCH_ARTIFACTS");
  EXPECT(dir != nullptr);
  const auto root = std::filesystem::path(dir) / "elasticity" / "model";
  auto scheduler =
      std::make_shared<MPIScheduler>(std::vector<c10::Device>{c10::kCPU}, std::vector<int64_t>{4});
  EXPECT(scheduler->size() == 2);
  // The same global batch on every rank (same seed); B odd so the ranks own 9 and 8 rows.
  const int64_t B = 17;
  at::manual_seed(3);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  const TensorMap global{{"strain", 1e-3 * (at::rand({B, 6}, opts) - 0.5)}};
  const auto E = 500.0 + 1000.0 * at::rand({B}, opts);
  const auto [offset, count] = scheduler->local_range(B);
  EXPECT(count == (scheduler->rank() == 0 ? 9 : 8) && offset == (scheduler->rank() == 0 ? 0 : 9));

  DispatchedModel local(root, scheduler);
  const auto mine = scheduler->local_slice(global, B);
  EXPECT(mine.at("strain").size(0) == count);
  const auto E_mine = scheduler->local_slice({{"model.E", E}}, B).at("model.E");
  const auto out = scheduler->gather(local.forward(mine, {{"model.E", E_mine}}));
  const auto jac = local.jacobian(mine).second.at("stress").at("strain");
  const auto jac_all = scheduler->gather(jac);

  Model direct(root);
  EXPECT(at::equal(out.at("stress"), direct.forward(global, {{"model.E", E}}).at("stress")));
  EXPECT(at::equal(jac_all, direct.jacobian(global).second.at("stress").at("strain")));
}

TEST_CASE(absent_is_reported)
{
  EXPECT(!mpi_enabled());
  EXPECT_THROWS(FatalError, MPIEnvironment(&g_argc, &g_argv), "without MPI support");
  EXPECT_THROWS(FatalError, MPIScheduler(), "without MPI support");
}

TEST_CASE(unloadable_plugin_is_reported)
{
  // run with NEML2_MPI_PLUGIN naming a file that is not a loadable plugin (ctest sets it)
  EXPECT(!mpi_enabled());
  EXPECT_THROWS(FatalError, MPIEnvironment(&g_argc, &g_argv), "MPI support could not be loaded");
  EXPECT_THROWS(FatalError, MPIScheduler(), "MPIScheduler: MPI support could not be loaded");
}

TEST_CASE(foreign_library_is_reported)
{
  // run with NEML2_MPI_PLUGIN naming a shared object that is not a plugin (libneml2.so itself)
  EXPECT(!mpi_enabled());
  EXPECT_THROWS(FatalError, MPIScheduler(), "is not an MPI plugin of libneml2");
}

int
main(int argc, char ** argv)
{
  g_argc = argc;
  g_argv = argv;
  return check::main(argc, argv);
}
