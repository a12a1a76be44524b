// The canonical input boundary: presence, trailing base shape, dtype, device, broadcasting.
#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/canonical.h"
#include "neml2/csrc/aoti/env.h"

using namespace neml2::aoti;

namespace
{
const std::vector<std::string> names{"strain", "T"};
const std::vector<std::vector<int64_t>> bases{{6}, {}};
const auto opts = at::TensorOptions().dtype(at::kDouble);

CanonicalInputs
run(const TensorMap & in)
{
  return canonicalize_inputs(in, names, bases, at::kCPU, at::kDouble);
}
} // namespace

TEST_CASE(broadcast_batches)
{
  auto strain = at::randn({4, 1, 6}, opts);
  auto T = at::randn({3}, opts);
  auto out = run({{"strain", strain}, {"T", T}});
  EXPECT((out.batch_shape == std::vector<int64_t>{4, 3}));
  EXPECT(out.values.at("strain").sizes() == at::IntArrayRef({4, 3, 6}));
  EXPECT(out.values.at("T").sizes() == at::IntArrayRef({4, 3}));
  EXPECT(out.values.at("strain").is_contiguous() && out.values.at("T").is_contiguous());
  EXPECT(at::equal(out.values.at("strain"), strain.expand({4, 3, 6})));
  EXPECT(at::equal(out.values.at("T"), T.expand({4, 3})));
}

TEST_CASE(batchless_stays_batchless)
{
  auto strain = at::randn({6}, opts);
  auto T = at::randn({}, opts);
  auto out = run({{"strain", strain}, {"T", T}});
  EXPECT(out.batch_shape.empty());
  EXPECT(out.values.at("strain").sizes() == at::IntArrayRef({6}));
  EXPECT(at::equal(out.values.at("strain"), strain));
  EXPECT(out.values.at("T").sizes() == at::IntArrayRef({}));
}

TEST_CASE(batchless_broadcasts_to_batch)
{
  auto out = run({{"strain", at::randn({5, 6}, opts)}, {"T", at::full({}, 300.0, opts)}});
  EXPECT(out.values.at("T").sizes() == at::IntArrayRef({5}));
  EXPECT(at::all(out.values.at("T") == 300.0).item<bool>());
}

TEST_CASE(missing_and_extra_inputs)
{
  EXPECT_THROWS(FatalError, run({{"strain", at::zeros({6}, opts)}}), "missing input 'T'");
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({6}, opts)},
                     {"T", at::zeros({}, opts)},
                     {"stress", at::zeros({6}, opts)}}),
                "unexpected input 'stress'");
}

TEST_CASE(wrong_base_shape)
{
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({2, 1}, opts)}, {"T", at::zeros({2}, opts)}}),
                "input 'strain': non-canonical shape [2, 1], expected trailing base shape [6]");
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({}, opts)}, {"T", at::zeros({2}, opts)}}),
                "non-canonical shape []");
}

TEST_CASE(dtype_and_device_are_never_cast)
{
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({6}, at::kFloat)}, {"T", at::zeros({}, opts)}}),
                "input 'strain' has dtype Float but the model expects Double");
  auto meta = opts.device(at::kMeta);
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({6}, meta)}, {"T", at::zeros({}, opts)}}),
                "input 'strain' is on device meta but the model runs on cpu");
}

TEST_CASE(incompatible_batches)
{
  EXPECT_THROWS(FatalError,
                run({{"strain", at::zeros({4, 6}, opts)}, {"T", at::zeros({3}, opts)}}),
                "input 'T': batch shape [3] does not broadcast with the batch shape [4]");
}

TEST_CASE(undefined_tensor)
{
  EXPECT_THROWS(FatalError,
                run({{"strain", at::Tensor()}, {"T", at::zeros({}, opts)}}),
                "input 'strain' is an undefined tensor");
}

TEST_CASE(env_truthy_rules)
{
  for (const char * v : {"", "0", "false", "FALSE", "No", "off", "  Off\t", " "})
    EXPECT(!env_truthy(v));
  EXPECT(!env_truthy(nullptr));
  for (const char * v : {"1", "true", "yes", "on", "2", " x "})
    EXPECT(env_truthy(v));
  setenv("NEML2_CAPTURE_SOLVE_FAILURE", " YES ", 1);
  EXPECT(capture_solve_failure());
  setenv("NEML2_CAPTURE_SOLVE_FAILURE", "off", 1);
  EXPECT(!capture_solve_failure());
  unsetenv("NEML2_CAPTURE_SOLVE_FAILURE");
  EXPECT(!capture_solve_failure());
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
