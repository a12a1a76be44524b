// The chunking rules of DispatchedModel (csrc/dispatchers/chunking.cpp, compiled into this test):
// batch detection, slicing, concatenation, batch-independent blocks, adjoint reduction.
#include <ATen/ATen.h>

#include "chunking.h"
#include "check.h"
#include "neml2/csrc/aoti/Exception.h"

using namespace neml2::aoti;
using namespace neml2::aoti::chunking;

namespace
{
const c10::Device cpu(c10::kCPU);
at::Tensor
rand(std::vector<int64_t> shape)
{
  return at::rand(shape, at::TensorOptions().dtype(at::kDouble));
}
} // namespace

TEST_CASE(batch_from_most_batch_axes)
{
  const BaseNdims base{{"strain", 1}, {"t", 0}, {"T", 0}};
  // strain (7,6) has one batch axis; t (1,) broadcasts; T () is batch-less.
  auto b = find_batch({{"strain", rand({7, 6})}, {"t", rand({1})}, {"T", rand({})}}, base);
  EXPECT(b.size == 7 && b.ndim == 1);
  // An input at its bare base shape is batch-less even though dim 0 is 6.
  b = find_batch({{"strain", rand({6})}, {"t", rand({3})}}, base);
  EXPECT(b.size == 3 && b.ndim == 1);
  b = find_batch({{"strain", rand({6})}}, base);
  EXPECT(b.size == 0 && b.ndim == 0);
  // With two batch axes only the inputs carrying both decide B; (4,) broadcasts on the right.
  b = find_batch({{"strain", rand({5, 4, 6})}, {"t", rand({4})}}, base);
  EXPECT(b.size == 5 && b.ndim == 2);
  EXPECT_THROWS(FatalError,
                find_batch({{"strain", rand({5, 6})}, {"t", rand({3})}}, base),
                "input 't' has leading batch size 3");
}

TEST_CASE(sub_batch_axes_are_not_batch_axes)
{
  // x (*B, 3) has a sub-batch of 3 and base (); strain (*B, 6) is plain batch (issue #27).
  const auto base = trailing_ndims({"x", "strain"}, {{}, {6}}, {{3}, {}});
  EXPECT(base.at("x") == 1 && base.at("strain") == 1);
  const auto x = rand({5, 3}), strain = rand({5, 6});
  const TensorMap in{{"x", x}, {"strain", strain}};
  const auto b = find_batch(in, base);
  EXPECT(b.size == 5 && b.ndim == 1);
  const auto part = slice(in, base, b, true, 2, 2, cpu);
  EXPECT(at::equal(part.at("x"), x.narrow(0, 2, 2)));
  EXPECT(at::equal(part.at("strain"), strain.narrow(0, 2, 2)));
  // x at its bare sub-batch shape is batch-less and passes through whole
  const TensorMap bare{{"x", rand({3})}, {"strain", strain}};
  const auto bb = find_batch(bare, base);
  EXPECT(bb.size == 5 && bb.ndim == 1);
  EXPECT(slice(bare, base, bb, true, 0, 2, cpu).at("x").sizes() == (std::vector<int64_t>{3}));
}

TEST_CASE(slice_cuts_only_batched_entries)
{
  const BaseNdims base{{"strain", 1}, {"t", 0}};
  const auto strain = rand({10, 6}), t = rand({1}), extra = rand({10, 2});
  const TensorMap in{{"strain", strain}, {"t", t}, {"unknown", extra}};
  const auto batch = find_batch(in, base);
  const auto part = slice(in, base, batch, true, 3, 4, cpu);
  EXPECT(at::equal(part.at("strain"), strain.narrow(0, 3, 4)));
  EXPECT(at::equal(part.at("t"), t));
  // Names without a base shape pass through whole.
  EXPECT(at::equal(part.at("unknown"), extra));
  // Parameters: any leading dim == B in front of the base is cut.
  const BaseNdims pbase{{"E", 0}, {"C", 2}};
  const auto E = rand({10}), C = rand({3, 3}), Eg = rand({});
  const auto p = slice({{"E", E}, {"C", C}, {"G", Eg}}, pbase, batch, false, 8, 2, cpu);
  EXPECT(at::equal(p.at("E"), E.narrow(0, 8, 2)));
  EXPECT(at::equal(p.at("C"), C) && at::equal(p.at("G"), Eg));
  EXPECT(!is_cut(E, 0, Batch{1, 1}, false));
}

TEST_CASE(concat_restores_order)
{
  const auto full = rand({9, 6});
  std::vector<TensorMap> chunks{{{"stress", full.narrow(0, 0, 4)}},
                                {{"stress", full.narrow(0, 4, 4)}},
                                {{"stress", full.narrow(0, 8, 1)}}};
  EXPECT(at::equal(concat(chunks, cpu).at("stress"), full));
}

TEST_CASE(blocks_batch_independent_pass_through)
{
  const BaseNdims out{{"stress", 1}}, in{{"strain", 1}, {"E", 0}};
  const auto C = rand({6, 6}), dE = rand({9, 6});
  std::vector<VariablePairJacobian> chunks;
  for (int64_t b : {0, 5})
    chunks.push_back({{"stress", {{"strain", C}, {"E", dE.narrow(0, b, b == 0 ? 5 : 4)}}}});
  const auto J = concat_blocks(chunks, block_ndims(out, in), cpu);
  EXPECT(at::equal(J.at("stress").at("strain"), C));
  EXPECT(at::equal(J.at("stress").at("E"), dE));
}

TEST_CASE(blocks_site_diagonal_ranks)
{
  // a site-diagonal block (B, S) of per-site scalars has the rank of the full (S, S) matrix:
  // only its recorded rank (1) tells that it is batched
  const BaseNdims out{{"rate", 1}}, in{{"tau", 1}};
  auto ndims = block_ndims(out, in);
  EXPECT(ndims.at("rate").at("tau") == 2);
  ndims["rate"]["tau"] = 1;
  const auto d = rand({7, 12});
  std::vector<VariablePairJacobian> chunks{{{"rate", {{"tau", d.narrow(0, 0, 3)}}}},
                                           {{"rate", {{"tau", d.narrow(0, 3, 4)}}}}};
  EXPECT(at::equal(concat_blocks(chunks, ndims, cpu).at("rate").at("tau"), d));
}

TEST_CASE(adjoints_summed_or_concatenated)
{
  const auto g0 = rand({}), g1 = rand({}), b = rand({7});
  std::vector<TensorMap> chunks{{{"E", g0}, {"w", b.narrow(0, 0, 3)}},
                                {{"E", g1}, {"w", b.narrow(0, 3, 4)}}};
  const auto out = reduce_adjoints(chunks, {"w"}, cpu);
  EXPECT(at::allclose(out.at("E"), g0 + g1, 0, 0));
  EXPECT(at::equal(out.at("w"), b));
  // The inputs of the reduction are left untouched.
  EXPECT(at::equal(chunks[0].at("E"), g0));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
