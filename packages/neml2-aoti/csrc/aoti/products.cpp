// sum_of_products: one-pass sums of broadcast products (see products.h).
#include "neml2/csrc/aoti/products.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/ops/empty_strided.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/simd.h"
#include "neml2/csrc/aoti/workspace.h"
#include "simd_support.h"

namespace neml2::aoti
{
namespace
{
/// One term's operands inside the iterator: input indices of a (-1: none) and b, and scale.
struct TermSlot
{
  int a = -1;
  int b = 0;
  double scale = 1.0;
};

/// How each term of a row reads its operands, fixed per call of the iterator's loop: the
/// streamed operands (unit stride) and the broadcast ones folded into the coefficient.
struct RowTerm
{
  double scale;
  int stream[2]; // operand indices read along the row (-1: none)
  int fold[2];   // broadcast operand indices multiplied into the coefficient (-1: none)
};

/// The terms of every row of one iterator loop, by kind: constant along the row, one streamed
/// operand, two streamed operands. A row sums them in this order.
struct RowPlan
{
  std::vector<RowTerm> constants, scaled, products;
};

/// The iterator loop's operand pointers at the current row (operand 0 the output) and their
/// byte steps from one row to the next.
struct RowCursor
{
  std::vector<char *> ptr;
  const int64_t * step;

  void advance()
  {
    for (std::size_t t = 0; t < ptr.size(); ++t)
      ptr[t] += step[t];
  }

  template <typename T>
  const T * stream(int t) const
  {
    return reinterpret_cast<const T *>(ptr[t]);
  }

  /// The term's scale times its folded (broadcast) operands at this row.
  template <typename T>
  T coefficient(const RowTerm & r) const
  {
    auto c = static_cast<T>(r.scale);
    for (int f : r.fold)
      if (f >= 0)
        c *= *stream<T>(f);
    return c;
  }

  /// The sum of the plan's constant terms at this row.
  template <typename T>
  T bias(const RowPlan & plan) const
  {
    T b = 0;
    for (const auto & r : plan.constants)
      b += coefficient<T>(r);
    return b;
  }
};

/// A term of one row, broadcast operands folded into its coefficient: c * x[l] (y null) or
/// c * x[l] * y[l].
template <typename T>
struct BlockTerm
{
  T c;
  const T * x;
  const T * y;
};

/// The terms of one row of the innermost axis: the constant part folded into `bias`, the rest
/// split into scaled streams and products of two streams (unit stride each).
template <typename T>
struct Block
{
  T bias = 0;
  std::vector<BlockTerm<T>> scaled, products;
};

/// out[l] = bias + sum c x[l] + sum c x[l] y[l] for l < n, W lanes at a time (vector type V),
/// the running sum kept in registers across terms and stored once.
template <typename T, typename V>
__attribute__((always_inline)) inline void
block_lanes(const Block<T> & blk, int64_t n, T * __restrict out)
{
  constexpr int64_t W = sizeof(V) / sizeof(T);
  // loads are plain memcpys (no helper function: one compiled outside the caller's target
  // would pass vectors under another ABI)
  int64_t l = 0;
  for (; l + W <= n; l += W)
  {
    V acc = V{} + blk.bias;
    for (const auto & t : blk.scaled)
    {
      V x;
      std::memcpy(&x, t.x + l, sizeof(V));
      acc += t.c * x;
    }
    for (const auto & t : blk.products)
    {
      V x, y;
      std::memcpy(&x, t.x + l, sizeof(V));
      std::memcpy(&y, t.y + l, sizeof(V));
      acc += t.c * x * y;
    }
    std::memcpy(out + l, &acc, sizeof(V));
  }
  for (; l < n; ++l)
  {
    T acc = blk.bias;
    for (const auto & t : blk.scaled)
      acc += t.c * t.x[l];
    for (const auto & t : blk.products)
      acc += t.c * t.x[l] * t.y[l];
    out[l] = acc;
  }
}

/// Rows of any length: each row's terms gathered into a Block and summed by block_lanes.
template <typename T, typename V>
__attribute__((always_inline)) inline void
long_rows(const RowPlan & plan, RowCursor & cur, int64_t n, int64_t rows)
{
  Block<T> blk;
  blk.products.resize(plan.products.size());
  blk.scaled.resize(plan.scaled.size());
  for (int64_t j = 0; j < rows; ++j, cur.advance())
  {
    blk.bias = cur.bias<T>(plan);
    for (std::size_t i = 0; i < plan.scaled.size(); ++i)
    {
      const auto & r = plan.scaled[i];
      blk.scaled[i] = {cur.coefficient<T>(r), cur.stream<T>(r.stream[0]), nullptr};
    }
    for (std::size_t i = 0; i < plan.products.size(); ++i)
    {
      const auto & r = plan.products[i];
      blk.products[i] = {
          cur.coefficient<T>(r), cur.stream<T>(r.stream[0]), cur.stream<T>(r.stream[1])};
    }
    block_lanes<T, V>(blk, n, reinterpret_cast<T *>(cur.ptr[0]));
  }
}

/// Rows of the compile-time length N (a tensor's trailing base axis, e.g. an SR2's 6 Mandel
/// slots): the same sums in the same order as long_rows, with the row's loops unrolled and
/// vectorized by the compiler instead of a Block built and dispatched per row.
template <typename T, int N>
__attribute__((always_inline)) inline void
short_rows(const RowPlan & plan, RowCursor & cur, int64_t rows)
{
  for (int64_t j = 0; j < rows; ++j, cur.advance())
  {
    T acc[N];
    const T bias = cur.bias<T>(plan);
    for (int l = 0; l < N; ++l)
      acc[l] = bias;
    for (const auto & r : plan.scaled)
    {
      const T c = cur.coefficient<T>(r);
      const T * __restrict x = cur.stream<T>(r.stream[0]);
      for (int l = 0; l < N; ++l)
        acc[l] += c * x[l];
    }
    for (const auto & r : plan.products)
    {
      const T c = cur.coefficient<T>(r);
      const T * __restrict x = cur.stream<T>(r.stream[0]);
      const T * __restrict y = cur.stream<T>(r.stream[1]);
      for (int l = 0; l < N; ++l)
        acc[l] += c * x[l] * y[l];
    }
    T * __restrict out = reinterpret_cast<T *>(cur.ptr[0]);
    for (int l = 0; l < N; ++l)
      out[l] = acc[l];
  }
}

/// Longest row length with its own short_rows instance.
constexpr int64_t max_short_row = 9;

/// `rows` rows of length n (unit strides along a row), by short_rows when n is at most
/// max_short_row, else long_rows (vector type V).
template <typename T, typename V>
__attribute__((always_inline)) inline void
rows_lanes(const RowPlan & plan, RowCursor & cur, int64_t n, int64_t rows)
{
  static_assert(max_short_row == 9, "one case per short row length");
  switch (n)
  {
    case 1:
      return short_rows<T, 1>(plan, cur, rows);
    case 2:
      return short_rows<T, 2>(plan, cur, rows);
    case 3:
      return short_rows<T, 3>(plan, cur, rows);
    case 4:
      return short_rows<T, 4>(plan, cur, rows);
    case 5:
      return short_rows<T, 5>(plan, cur, rows);
    case 6:
      return short_rows<T, 6>(plan, cur, rows);
    case 7:
      return short_rows<T, 7>(plan, cur, rows);
    case 8:
      return short_rows<T, 8>(plan, cur, rows);
    case 9:
      return short_rows<T, 9>(plan, cur, rows);
    default:
      return long_rows<T, V>(plan, cur, n, rows);
  }
}

template <typename T>
void
rows_scalar(const RowPlan & plan, RowCursor & cur, int64_t n, int64_t rows)
{
  rows_lanes<T, T>(plan, cur, n, rows);
}

#if NEML2_AOTI_X86_SIMD
template <typename T>
__attribute__((target("avx512f"))) void
rows_avx512(const RowPlan & plan, RowCursor & cur, int64_t n, int64_t rows)
{
  typedef T V __attribute__((vector_size(64)));
  rows_lanes<T, V>(plan, cur, n, rows);
}

template <typename T>
__attribute__((target("avx2"))) void
rows_avx2(const RowPlan & plan, RowCursor & cur, int64_t n, int64_t rows)
{
  typedef T V __attribute__((vector_size(32)));
  rows_lanes<T, V>(plan, cur, n, rows);
}
#endif

template <typename T>
using RowsKernel = void (*)(const RowPlan &, RowCursor &, int64_t, int64_t);

/// The rows kernel of `path` (supported: see require_simd_path).
template <typename T>
RowsKernel<T>
rows_kernel(SimdPath path)
{
#if NEML2_AOTI_X86_SIMD
  if (path == SimdPath::avx512)
    return &rows_avx512<T>;
  if (path == SimdPath::avx2)
    return &rows_avx2<T>;
#endif
  (void)path;
  return &rows_scalar<T>;
}

/// out[l * so] = sum_i c_i x_i[l * sx_i] (y_i[l * sy_i]) for any element strides (a stride of
/// 0 broadcasts), one element at a time.
template <typename T>
void
strided_elements(const std::vector<TermSlot> & slots,
                 char * const * ptr,
                 const int64_t * element_strides,
                 int64_t n)
{
  auto at = [&](int t, int64_t l)
  { return reinterpret_cast<const T *>(ptr[t])[l * element_strides[t]]; };
  auto * out = reinterpret_cast<T *>(ptr[0]);
  for (int64_t l = 0; l < n; ++l)
  {
    T acc = 0;
    for (const auto & s : slots)
      acc += static_cast<T>(s.scale) * (s.a < 0 ? T(1) : at(1 + s.a, l)) * at(1 + s.b, l);
    out[l * element_strides[0]] = acc;
  }
}

/// The iterator's 2-D loop: operand 0 is the output, inputs follow (byte strides).
template <typename T>
void
accumulate_2d(const std::vector<TermSlot> & slots,
              SimdPath path,
              int ntensors,
              char ** data,
              const int64_t * strides,
              int64_t size0,
              int64_t size1)
{
  constexpr auto E = static_cast<int64_t>(sizeof(T));
  std::vector<int64_t> es(ntensors);
  bool unit = strides[0] == E;
  for (int t = 0; t < ntensors; ++t)
  {
    es[t] = strides[t] / E;
    unit = unit && (t == 0 || es[t] == 0 || es[t] == 1);
  }
  RowCursor cur{std::vector<char *>(data, data + ntensors), strides + ntensors};
  if (!unit)
  {
    for (int64_t j = 0; j < size1; ++j, cur.advance())
      strided_elements<T>(slots, cur.ptr.data(), es.data(), size0);
    return;
  }
  RowPlan plan;
  for (const auto & s : slots)
  {
    RowTerm r{s.scale, {-1, -1}, {-1, -1}};
    int ns = 0, nf = 0;
    for (int op : {s.b, s.a})
      if (op >= 0)
        (es[1 + op] ? r.stream[ns++] : r.fold[nf++]) = 1 + op;
    (ns == 2 ? plan.products : ns == 1 ? plan.scaled : plan.constants).push_back(r);
  }
  rows_kernel<T>(path)(plan, cur, size0, size1);
}

/// The output's axes from outermost to innermost in memory (largest stride first).
std::vector<int64_t>
memory_order(const at::Tensor & t)
{
  std::vector<int64_t> order(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d)
    order[d] = d;
  std::stable_sort(
      order.begin(), order.end(), [&](int64_t x, int64_t y) { return t.stride(x) > t.stride(y); });
  return order;
}

/// `t` copied into the memory order `order` (same shape and values), so that it streams along
/// the output's innermost axis.
at::Tensor
in_memory_order(const at::Tensor & t, const std::vector<int64_t> & order)
{
  std::vector<int64_t> inverse(order.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    inverse[order[k]] = static_cast<int64_t>(k);
  return t.permute(order).contiguous().permute(inverse);
}

/// Whether `t` (broadcast against `out`) is read with a stride other than 0 or 1 along the
/// output's innermost non-trivial axis.
bool
strided_along_inner(const at::Tensor & t,
                    const at::Tensor & out,
                    const std::vector<int64_t> & order)
{
  if (t.dim() != out.dim())
    return false;
  for (auto k = order.rbegin(); k != order.rend(); ++k)
    if (out.size(*k) > 1)
      return t.size(*k) > 1 && t.stride(*k) != 1;
  return false;
}

/// The iterator over `inputs` (borrowed: they must outlive it) writing `out` (owned; undefined:
/// allocated by the iterator).
at::TensorIterator
build_iterator(const at::Tensor & out, const std::vector<at::Tensor> & inputs)
{
  at::TensorIteratorConfig config;
  config.add_owned_output(out);
  for (const auto & t : inputs)
    config.add_const_input(t);
  config.check_all_same_dtype(true);
  return config.build();
}

std::string
term_name(std::size_t i, const char * operand)
{
  return "sum_of_products: term " + std::to_string(i) + " operand " + operand;
}

/// The distinct operands of `terms` (each one iterator input) and each term's slot into them;
/// throws FatalError naming the term and operand that is undefined, of another dtype than term
/// 0's b (or not floating), or not on the CPU.
std::pair<std::vector<at::Tensor>, std::vector<TermSlot>>
distinct_operands(const std::vector<ProductTerm> & terms)
{
  if (terms.empty())
    throw FatalError("sum_of_products: no terms");
  for (std::size_t i = 0; i < terms.size(); ++i)
    if (!terms[i].b.defined())
      throw FatalError(term_name(i, "b") + " is undefined");
  const auto dtype = terms.front().b.scalar_type();
  std::vector<at::Tensor> inputs;
  auto index_of = [&](const at::Tensor & t, std::size_t i, const char * what) -> int
  {
    if (t.scalar_type() != dtype || !at::isFloatingType(t.scalar_type()))
      throw FatalError(term_name(i, what) + ": dtype " +
                       std::string(c10::toString(t.scalar_type())) +
                       ", expected the floating dtype of term 0's b");
    if (!t.device().is_cpu())
      throw FatalError(term_name(i, what) + ": device " + t.device().str() + ", expected cpu");
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (inputs[k].is_same(t))
        return static_cast<int>(k);
    inputs.push_back(t);
    return static_cast<int>(inputs.size() - 1);
  };
  std::vector<TermSlot> slots;
  for (std::size_t i = 0; i < terms.size(); ++i)
  {
    TermSlot s;
    s.scale = terms[i].scale;
    if (terms[i].a.defined())
      s.a = index_of(terms[i].a, i, "a");
    s.b = index_of(terms[i].b, i, "b");
    slots.push_back(s);
  }
  return {std::move(inputs), std::move(slots)};
}

/// Reorder `inputs` largest first (stable: term order among equals), renumbering `slots`: the
/// iterator gives the output the memory order of its first decisive operands.
void
largest_first(std::vector<at::Tensor> & inputs, std::vector<TermSlot> & slots)
{
  std::vector<int> order(inputs.size()), position(inputs.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(),
                   order.end(),
                   [&](int x, int y) { return inputs[x].numel() > inputs[y].numel(); });
  std::vector<at::Tensor> sorted;
  for (std::size_t k = 0; k < order.size(); ++k)
  {
    position[order[k]] = static_cast<int>(k);
    sorted.push_back(inputs[order[k]]);
  }
  inputs = std::move(sorted);
  for (auto & s : slots)
  {
    s.b = position[s.b];
    if (s.a >= 0)
      s.a = position[s.a];
  }
}

/// Metadata-only stand-ins (same sizes, strides and dtype) for `inputs`.
std::vector<at::Tensor>
meta_like(const std::vector<at::Tensor> & inputs)
{
  std::vector<at::Tensor> metas;
  metas.reserve(inputs.size());
  for (const auto & t : inputs)
    metas.push_back(at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta)));
  return metas;
}

/// The iterator writing a new output from `inputs` (which must outlive it), in this thread's
/// workspace if one is active (workspace.h). Small operands in
/// another memory order than the output's (a batch-outermost value among batch-innermost
/// tangents) would force element-wise strided reads: they are copied into that order first.
/// Throws FatalError listing the terms' shapes when the operands do not broadcast.
at::TensorIterator
iterator_for(const std::vector<ProductTerm> & terms, std::vector<at::Tensor> & inputs)
{
  try
  {
    // In a workspace the output's geometry comes from an iterator over meta stand-ins (no
    // allocation), and its memory from the workspace.
    const bool pooled = workspace_active();
    const auto metas = pooled ? meta_like(inputs) : std::vector<at::Tensor>();
    auto iter = build_iterator(at::Tensor(), pooled ? metas : inputs);
    const at::Tensor out = iter.output();
    const auto order = memory_order(out);
    bool copied = false;
    for (auto & t : inputs)
      if (4 * t.numel() <= out.numel() && strided_along_inner(t, out, order))
      {
        t = in_memory_order(t, order);
        copied = true;
      }
    if (pooled)
      return build_iterator(
          workspace_empty_strided(out.sizes(), out.strides(), inputs.front().options()), inputs);
    return copied ? build_iterator(out, inputs) : iter;
  }
  catch (const c10::Error & e)
  {
    std::string shapes;
    for (std::size_t i = 0; i < terms.size(); ++i)
    {
      shapes += (i ? ", " : "") + std::string("term ") + std::to_string(i) + " ";
      if (terms[i].a.defined())
        shapes += c10::str(terms[i].a.sizes()) + " * ";
      shapes += c10::str(terms[i].b.sizes());
    }
    throw FatalError("sum_of_products: operands do not broadcast together (" + shapes +
                     "): " + e.what_without_backtrace());
  }
}
} // namespace

at::Tensor
sum_of_products(const std::vector<ProductTerm> & terms, std::optional<SimdPath> path)
{
  const SimdPath simd = kernel_simd_path(path, "sum_of_products");
  auto [inputs, slots] = distinct_operands(terms);
  largest_first(inputs, slots);
  auto iter = iterator_for(terms, inputs);
  const int ntensors = iter.ntensors();
  AT_DISPATCH_FLOATING_TYPES(
      iter.common_dtype(),
      "sum_of_products",
      [&]
      {
        iter.for_each(
            [&](char ** data, const int64_t * strides, int64_t size0, int64_t size1)
            { accumulate_2d<scalar_t>(slots, simd, ntensors, data, strides, size0, size1); });
      });
  return iter.output();
}
} // namespace neml2::aoti
