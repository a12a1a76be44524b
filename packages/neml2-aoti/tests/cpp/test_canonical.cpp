// The canonical input boundary: presence, trailing sub-batch and base shape, dtype, device,
// broadcasting.
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

TEST_CASE(check_only_returns_the_inputs_as_given)
{
  CanonicalOptions check;
  check.expand = false;
  auto strain = at::randn({4, 1, 6}, opts);
  auto T = at::randn({3}, opts);
  auto out = canonicalize_inputs(
      {{"strain", strain}, {"T", T}}, names, bases, at::kCPU, at::kDouble, check);
  EXPECT((out.batch_shape == std::vector<int64_t>{4, 3}));
  // the same tensors (no expansion, no copy)
  EXPECT(out.values.at("strain").is_same(strain) && out.values.at("T").is_same(T));
  // and the same checks
  EXPECT_THROWS(FatalError,
                canonicalize_inputs({{"strain", at::randn({4, 2, 6}, opts)}, {"T", T}},
                                    names,
                                    bases,
                                    at::kCPU,
                                    at::kDouble,
                                    check),
                "does not broadcast");
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

TEST_CASE(sub_batch_is_part_of_the_trailing_shape)
{
  CanonicalOptions options;
  options.sub_batch_shapes = {{}, {3}};
  auto check = [&](const TensorMap & in)
  { return canonicalize_inputs(in, names, bases, at::kCPU, at::kDouble, options); };
  auto out = check({{"strain", at::randn({2, 6}, opts)}, {"T", at::randn({3}, opts)}});
  EXPECT((out.batch_shape == std::vector<int64_t>{2}));
  EXPECT(out.values.at("T").sizes() == at::IntArrayRef({2, 3}));
  EXPECT_THROWS(FatalError,
                check({{"strain", at::zeros({2, 6}, opts)}, {"T", at::zeros({2, 4}, opts)}}),
                "input 'T': non-canonical shape [2, 4], expected trailing shape [3] (sub-batch "
                "shape [3], base shape []; canonical shape is (*batch, *sub_batch, *base))");
  options.sub_batch_shapes = {{3}};
  EXPECT_THROWS(FatalError,
                check({{"strain", at::zeros({6}, opts)}, {"T", at::zeros({}, opts)}}),
                "2 input names but 1 sub-batch shapes");
}

TEST_CASE(optional_names_and_the_noun)
{
  CanonicalOptions options;
  options.required = false;
  options.what = "tangent";
  auto check = [&](const TensorMap & in)
  { return canonicalize_inputs(in, names, bases, at::kCPU, at::kDouble, options); };
  auto out = check({{"T", at::randn({4}, opts)}});
  EXPECT(out.values.size() == 1 && out.values.count("T") == 1);
  EXPECT((out.batch_shape == std::vector<int64_t>{4}));
  EXPECT(check({}).values.empty() && check({}).batch_shape.empty());
  EXPECT_THROWS(FatalError,
                check({{"stress", at::zeros({6}, opts)}}),
                "unexpected tangent 'stress'; the model's inputs are: strain, T");
  EXPECT_THROWS(FatalError, check({{"strain", at::zeros({5}, opts)}}), "tangent 'strain': non");
  EXPECT_THROWS(FatalError,
                check({{"strain", at::zeros({4, 6}, opts)}, {"T", at::zeros({3}, opts)}}),
                "tangent 'T': batch shape [3] does not broadcast with the batch shape [4] of the "
                "preceding tangents (strain)");
}

TEST_CASE(broadcast_batch_shapes_rule)
{
  EXPECT((broadcast_batch_shapes({{4, 1}, {3}, {}}) == std::vector<int64_t>{4, 3}));
  EXPECT(broadcast_batch_shapes({}).empty());
  EXPECT((broadcast_batch_shapes({{0}, {1}}) == std::vector<int64_t>{0}));
  EXPECT_THROWS(
      FatalError, broadcast_batch_shapes({{4}, {3}}), "batch shapes [4], [3] do not broadcast");
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
