// The arguments and results metadata.json implies for each graph (ARTIFACT.md §3), compared with
// the signature neml2-compile embedded in the graph's package. A metadata.json edited after the
// compile, or a graph file of another compile, is refused at load instead of being fed tensors
// of the wrong size or dtype.
#include <string>
#include <vector>

#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace
{
/// One expected argument or result: its spec and what it is, for messages.
struct Expected
{
  TensorSpec spec;
  std::string what;
};

class Expectation
{
public:
  Expectation(const ModelImpl & m)
    : _m(m),
      _batch(m.fixed_batch >= 0 ? m.fixed_batch : -1),
      _dtype(dtype_folder(m.dtype)),
      _device(c10::DeviceTypeName(m.device.type(), /*lower_case=*/true))
  {
  }

  /// (B, *trailing) of variable `slot`.
  Expected var(int slot) const
  {
    const auto & v = _m.vars[slot];
    return make(_batch, v.trailing(), {}, "variable '" + v.name + "'");
  }
  /// (B, *shape) of promoted parameter `index`.
  Expected param(int index) const
  {
    const auto & p = _m.params[index];
    return make(_batch, p.base, {}, "parameter '" + p.name + "'");
  }
  /// (B or 1, *a, *b): a derivative block.
  Expected block(bool batch_independent,
                 const std::vector<int64_t> & a,
                 const std::vector<int64_t> & b,
                 const std::string & what) const
  {
    return make(batch_independent ? 1 : _batch, a, b, what);
  }
  /// (B, *dims): a flat implicit vector or matrix.
  Expected flat(const std::vector<int64_t> & dims, const std::string & what) const
  {
    return make(_batch, dims, {}, what);
  }

private:
  Expected make(int64_t lead,
                const std::vector<int64_t> & a,
                const std::vector<int64_t> & b,
                const std::string & what) const
  {
    Expected e{{_dtype, _device, {lead}}, what};
    e.spec.shape.insert(e.spec.shape.end(), a.begin(), a.end());
    e.spec.shape.insert(e.spec.shape.end(), b.begin(), b.end());
    return e;
  }

  const ModelImpl & _m;
  int64_t _batch;
  std::string _dtype, _device;
};

/// A graph without inputs is traced with a static batch (nothing carries one in): its outputs
/// may lead with any size, which the runtime broadcasts.
constexpr int64_t kAnyBatch = -2;

bool
matches(const TensorSpec & recorded, const TensorSpec & expected)
{
  if (recorded.dtype != expected.dtype || recorded.device != expected.device ||
      recorded.shape.size() != expected.shape.size())
    return false;
  for (std::size_t d = 0; d < expected.shape.size(); ++d)
    if (recorded.shape[d] != expected.shape[d] && !(d == 0 && expected.shape[0] == kAnyBatch))
      return false;
  return true;
}

void
compare(const std::vector<TensorSpec> & recorded,
        const std::vector<Expected> & expected,
        const std::string & kind,
        const Graph & g,
        const std::string & src)
{
  const auto where = "graph '" + g.file() + "'";
  const auto fix = "; the artifact is inconsistent (metadata.json edited, or a graph file from "
                   "another compile): recompile with neml2-compile";
  if (recorded.size() != expected.size())
    throw FatalError(src + ": " + where + " has " + std::to_string(recorded.size()) + " " + kind +
                     "s, metadata.json implies " + std::to_string(expected.size()) + fix);
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (!matches(recorded[k], expected[k].spec))
      throw FatalError(src + ": " + where + " " + kind + " " + std::to_string(k) + " is " +
                       recorded[k].str() + ", metadata.json implies " + expected[k].spec.str() +
                       " (" + expected[k].what + ")" + fix);
}

void
check(const Graph * g,
      const std::vector<Expected> & inputs,
      const std::vector<Expected> & outputs,
      const std::string & src)
{
  if (!g)
    return;
  compare(g->signature().inputs, inputs, "input", *g, src);
  if (!inputs.empty())
    return compare(g->signature().outputs, outputs, "output", *g, src);
  auto any = outputs;
  for (auto & o : any)
    o.spec.shape[0] = kAnyBatch;
  compare(g->signature().outputs, any, "output", *g, src);
}

void
check_forward(const ModelImpl & m, const ForwardSegment & f, const std::string & src)
{
  const Expectation x(m);
  std::vector<Expected> in, values, with_blocks, param_blocks;
  for (int id : f.inputs)
    in.push_back(x.var(id));
  for (int p : f.params)
    in.push_back(x.param(p));
  for (int id : f.outputs)
    values.push_back(x.var(id));
  with_blocks = values;
  for (const auto & p : f.pairs)
  {
    const auto & o = m.vars[p.out];
    const auto & i = m.vars[p.in];
    with_blocks.push_back(x.block(
        p.batch_independent, o.trailing(), i.trailing(), "d(" + o.name + ")/d(" + i.name + ")"));
  }
  for (const auto & p : f.param_pairs)
  {
    const auto & o = m.vars[p.out];
    const auto & q = m.params[p.in];
    param_blocks.push_back(
        x.block(false, o.trailing(), q.base, "d(" + o.name + ")/d(" + q.name + ")"));
  }
  check(f.value.get(), in, values, src);
  check(f.jvp.get(), in, with_blocks, src);
  check(f.pjac.get(), in, param_blocks, src);
}

void
check_implicit(const ModelImpl & m, const ImplicitSegment & s, const std::string & src)
{
  const Expectation x(m);
  const int64_t n = s.n_unknown;
  std::vector<Expected> in{x.flat({n}, "the flat unknowns u")};
  for (const auto & g : s.givens)
    in.push_back(x.var(g.slot));
  for (int p : s.params)
    in.push_back(x.param(p));
  const auto b = x.flat({n}, "the residual b = -r");
  check(s.residual.get(), in, {b}, src);
  check(s.jacobian.get(), in, {b, x.flat({n, n}, "the Jacobian A = dr/du")}, src);
  check(s.jacobian_given.get(), in, {x.flat({n, s.n_given_columns}, "dr/dg")}, src);
  check(s.dr_dparam.get(), in, {x.flat({n, s.n_param_columns}, "dr/dparam")}, src);
  std::vector<Expected> pin, pout;
  for (int id : s.predictor_inputs)
    pin.push_back(x.var(id));
  for (int id : s.predictor_outputs)
    pout.push_back(x.var(id));
  check(s.predictor.get(), pin, pout, src);
}
} // namespace

void
check_graph_signatures(const ModelImpl & m, const std::string & src)
{
  for (const auto & seg : m.segments)
    if (seg.implicit)
      check_implicit(m, seg.imp, src);
    else
      check_forward(m, seg.fwd, src);
}
} // namespace neml2::aoti
