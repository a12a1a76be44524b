// batched_dense_solve: a per-element partial-pivoting LU for many small systems.
//
// Generic batched LAPACK spends most of its time in per-matrix call overhead when n is ~5-30.
// Here each element is gathered (through a table of entry pointers: any strides of A, or the
// nonzero blocks of batched_parts_solve) into a scratch buffer, reduced to upper-triangular form
// with row pivoting while the same row operations are applied to its right-hand sides, then
// solved by back substitution. For n <= kUnrolled the loop bounds are compile-time constants
// (unrolled and vectorized by the compiler). On x86-64 with GCC, full groups of 8 (AVX-512) or 4
// (AVX2) double elements are solved together, one per SIMD lane (the path is the caller's or
// simd_path(), i.e. NEML2_SIMD; `scalar` solves every element alone): W consecutive entries
// (along a row or down a column) are loaded together and transposed in registers,
// batch-innermost ones (eager tangents) are prefetched, pivot rows are exchanged with masked
// vector moves, and many right-hand sides are taken kRhsChunk at a time. Exact-zero pivots are
// not special-cased: they divide by zero, so a singular element's solution comes out non-finite
// without touching its neighbours.
#include "neml2/csrc/aoti/linalg.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/simd.h"
#include "simd_support.h"

namespace neml2::aoti
{
namespace
{
constexpr int64_t kUnrolled = 24;
/// How many lane groups ahead the lane kernels prefetch batch-innermost entries.
constexpr int64_t kPrefetchGroups = 8;
/// Right-hand sides the lane kernels solve at a time (see lanes_body).
constexpr int64_t kRhsChunk = 8;

/// How a lane kernel loads entries for its W elements (see load_plan).
enum class Load : int8_t
{
  BatchInner, // entry ij, stored batch-innermost: one vector load (a run of `count` entries)
  Broadcast,  // entry ij, the same value for every element (stride 0, e.g. no part covers it)
  Row,        // entries ij .. ij + W - 1 at consecutive addresses: W loads and a transpose
  Column,     // entries ij, ij + n, .., ij + (W - 1) n at consecutive addresses: the same
  Scalar,     // entry ij: one scalar load per element
};

/// One step of a load plan: entry ij of element e is base[e * stride]. A BatchInner step covers
/// the run ij .. ij + count - 1, entry ij + t at base + t * delta (one address step per entry,
/// no table lookups: the n*n loads are a large part of a small solve).
template <typename T>
struct LoadOp
{
  int64_t ij;
  Load kind;
  const T * base;
  int64_t stride;
  int64_t count = 1;
  int64_t delta = 0;
};

/// Where each element's entries are: entry (i, j) of element e is ptr[i n + j][e stride[i n + j]]
/// (entries no part covers point at a zero with stride 0). plan: the lane kernels' loads
/// (load_plan), filled by solve_native for the lane width it runs.
template <typename T>
struct Entries
{
  std::vector<const T *> ptr;
  std::vector<int64_t> stride;
  std::vector<int> part; // the part an entry comes from (-1: none), so runs stay in one tensor
  std::vector<LoadOp<T>> plan;
};

template <typename T>
Entries<T>
entries(const std::vector<MatrixPart> & parts, int64_t n)
{
  static const T zero = T(0);
  const auto nn = static_cast<std::size_t>(n * n);
  Entries<T> e{
      std::vector<const T *>(nn, &zero), std::vector<int64_t>(nn, 0), std::vector<int>(nn, -1), {}};
  for (std::size_t k = 0; k < parts.size(); ++k)
  {
    const auto & p = parts[k];
    const T * base = p.t.const_data_ptr<T>();
    const int64_t s0 = p.t.size(0) == 1 ? 0 : p.t.stride(0), s1 = p.t.stride(1), s2 = p.t.stride(2);
    for (int64_t i = 0; i < p.t.size(1); ++i)
      for (int64_t j = 0; j < p.t.size(2); ++j)
      {
        const auto ij = static_cast<std::size_t>((p.row + i) * n + p.col + j);
        e.ptr[ij] = base + i * s1 + j * s2;
        e.stride[ij] = s0;
        e.part[ij] = static_cast<int>(k);
      }
  }
  return e;
}

/// Per entry ij: how many entries ij, ij + step, ij + 2 step, .. (row-major indices) sit at
/// consecutive addresses with the same nonzero stride, so the lane kernels load them for several
/// elements at once and transpose in registers (step 1: along a row and on across rows; step n:
/// down a column).
template <typename T>
std::vector<int64_t>
consecutive_runs(const Entries<T> & e, int64_t n, int64_t step)
{
  const auto nn = static_cast<std::size_t>(n * n);
  std::vector<int64_t> run(nn, 1);
  for (int64_t ij = n * n - step - 1; ij >= 0; --ij)
  {
    const auto a = static_cast<std::size_t>(ij), b = static_cast<std::size_t>(ij + step);
    if (e.ptr[b] == e.ptr[a] + 1 && e.stride[b] == e.stride[a] && e.stride[a] != 0)
      run[a] = run[b] + 1;
  }
  return run;
}

/// The loads that fill the n*n lane vectors of W elements from `e`, in row-major order of their
/// first entry: batch-innermost entries one vector each, consecutive ones whose addresses advance
/// by a constant step as one run; broadcast entries (stride 0) one splat; otherwise W entries at
/// consecutive addresses along a row (row-major storage) or down a column (column-major storage,
/// e.g. a compiled graph's Jacobian laid out (n, B, n) column by column) loaded together and
/// transposed; the rest one scalar per element.
template <typename T>
std::vector<LoadOp<T>>
load_plan(const Entries<T> & e, int64_t n, int64_t W)
{
  const auto nn = static_cast<std::size_t>(n * n);
  const auto along = consecutive_runs(e, n, 1), down = consecutive_runs(e, n, n);
  std::vector<char> loaded(nn, 0);
  auto free_run = [&](int64_t ij, int64_t step)
  {
    for (int64_t t = 0; t < W; ++t)
      if (loaded[static_cast<std::size_t>(ij + t * step)])
        return false;
    return true;
  };
  std::vector<LoadOp<T>> plan;
  for (int64_t ij = 0; ij < n * n; ++ij)
  {
    const auto u = static_cast<std::size_t>(ij);
    if (loaded[u])
      continue;
    LoadOp<T> op{ij, Load::Scalar, e.ptr[u], e.stride[u]};
    int64_t step = 0;
    if (e.stride[u] == 1)
    {
      op.kind = Load::BatchInner;
      // extend the run while the next entry is batch-innermost in the same part (addresses
      // within one tensor) at the same address step
      for (auto v = u + 1; v < nn && !loaded[v] && e.stride[v] == 1 && e.part[v] == e.part[u]; ++v)
      {
        const int64_t d = e.ptr[v] - e.ptr[v - 1];
        if (op.count > 1 && d != op.delta)
          break;
        op.delta = d;
        ++op.count;
      }
    }
    else if (e.stride[u] == 0)
      op.kind = Load::Broadcast;
    else if (along[u] >= W && free_run(ij, 1))
      op.kind = Load::Row, step = 1;
    else if (down[u] >= W && free_run(ij, n))
      op.kind = Load::Column, step = n;
    plan.push_back(op);
    for (int64_t t = 0; t < (step ? W : op.count); ++t)
      loaded[static_cast<std::size_t>(ij + t * (step ? step : 1))] = 1;
  }
  return plan;
}

/// x <- A^-1 x for element e of the entry table (ptr, st), x (n, k) row-major. NF > 0 fixes n at
/// compile time; NF == 0 reads n_rt. `a` is n*n scratch.
template <typename T, int64_t NF>
void
solve_one(const T * const * __restrict ptr,
          const int64_t * __restrict st,
          int64_t e,
          T * __restrict x,
          int64_t n_rt,
          int64_t k,
          T * __restrict a)
{
  const int64_t n = NF > 0 ? NF : n_rt;
  for (int64_t ij = 0; ij < n * n; ++ij)
    a[ij] = ptr[ij][e * st[ij]];
  for (int64_t c = 0; c < n; ++c)
  {
    // Partial pivoting: the largest magnitude in column c at or below the diagonal.
    int64_t p = c;
    T best = std::abs(a[c * n + c]);
    for (int64_t i = c + 1; i < n; ++i)
    {
      const T v = std::abs(a[i * n + c]);
      if (v > best)
      {
        best = v;
        p = i;
      }
    }
    if (p != c)
    {
      // Columns left of c are eliminated (multipliers are never reused), so swap from c on.
      std::swap_ranges(a + c * n + c, a + c * n + n, a + p * n + c);
      std::swap_ranges(x + c * k, x + c * k + k, x + p * k);
    }
    const T inv = T(1) / a[c * n + c];
    const T * __restrict rc = a + c * n;
    const T * __restrict xc = x + c * k;
    for (int64_t i = c + 1; i < n; ++i)
    {
      const T l = a[i * n + c] * inv;
      if (l == T(0)) // exact zeros (sparse Jacobians) need no update; NaN still propagates
        continue;
      T * __restrict ri = a + i * n;
      for (int64_t j = c + 1; j < n; ++j)
        ri[j] -= l * rc[j];
      T * __restrict xi = x + i * k;
      for (int64_t r = 0; r < k; ++r)
        xi[r] -= l * xc[r];
    }
  }
  // back substitution by columns (as back_substitute): x_i is final once scaled, then leaves
  // the rows above it
  for (int64_t i = n - 1; i >= 0; --i)
  {
    const T inv = T(1) / a[i * n + i];
    T * __restrict xi = x + i * k;
    for (int64_t r = 0; r < k; ++r)
      xi[r] *= inv;
    for (int64_t p = 0; p < i; ++p)
    {
      const T m = a[p * n + i];
      T * __restrict xq = x + p * k;
      for (int64_t r = 0; r < k; ++r)
        xq[r] -= m * xi[r];
    }
  }
}

template <typename T>
using Kernel = void (*)(const T * const *, const int64_t *, int64_t, T *, int64_t, int64_t, T *);

template <typename T, std::size_t... I>
constexpr std::array<Kernel<T>, sizeof...(I)>
kernel_table(std::index_sequence<I...>)
{
  return {&solve_one<T, static_cast<int64_t>(I)>...};
}

/// kernel_for<T>(n): the unrolled kernel for n <= kUnrolled, else the runtime-n one.
template <typename T>
Kernel<T>
kernel_for(int64_t n)
{
  static constexpr auto table = kernel_table<T>(std::make_index_sequence<kUnrolled + 1>{});
  return n <= kUnrolled ? table[static_cast<std::size_t>(n)] : table[0];
}

#if NEML2_AOTI_X86_SIMD
/// The same elimination for W = Bytes / sizeof(T) elements at once, one element per SIMD lane
/// (AVX-512 or AVX2, selected at run time). Pivot rows are chosen per lane without branches and
/// swapped per lane; every arithmetic step is the scalar kernel's, in the same order and without
/// FMA contraction (this file is compiled with -ffp-contract=off), so an element's result is
/// bit-identical whichever path (either lane width or the scalar tail) solved it.
template <typename T, int Bytes>
struct Lanes
{
  static constexpr int64_t W = Bytes / static_cast<int64_t>(sizeof(T));
  typedef T V __attribute__((vector_size(Bytes)));
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  typedef I IV __attribute__((vector_size(Bytes)));
};

/// The two-input shuffle mask of stage `Bit` of a W x W transpose: the low (`Hi` false) or high
/// row of a pair (i, i + Bit) after swapping bit `Bit` of the row and column indices.
template <typename IV, int64_t W, int64_t Bit, bool Hi>
__attribute__((always_inline)) inline IV
interleave_mask()
{
  IV m{};
  for (int64_t j = 0; j < W; ++j)
    m[j] = Hi ? ((j & Bit) ? W + j : j + Bit) : ((j & Bit) ? W + j - Bit : j);
  return m;
}

/// r[i][j] <- r[j][i] for W vectors of W lanes, in log2(W) stages of two-input shuffles.
template <typename V, typename IV, int64_t W, int64_t Bit = 1>
__attribute__((always_inline)) inline void
transpose(V * r)
{
  if constexpr (Bit < W)
  {
    const IV lo = interleave_mask<IV, W, Bit, false>(), hi = interleave_mask<IV, W, Bit, true>();
    for (int64_t i = 0; i < W; ++i)
      if ((i & Bit) == 0)
      {
        const V u = r[i], v = r[i + Bit];
        r[i] = __builtin_shuffle(u, v, lo);
        r[i + Bit] = __builtin_shuffle(u, v, hi);
      }
    transpose<V, IV, W, Bit * 2>(r);
  }
}

/// out[t][l] = src[l * s + t] for t < W: W consecutive entries of W elements s apart, one
/// vector per entry (W loads and a transpose instead of W * W scalar moves).
template <typename V, typename IV, typename T, int64_t W>
__attribute__((always_inline)) inline void
load_transposed(const T * __restrict src, int64_t s, V * __restrict out)
{
  V r[W];
  for (int64_t l = 0; l < W; ++l)
    std::memcpy(&r[l], src + l * s, sizeof(V));
  transpose<V, IV, W>(r);
  for (int64_t t = 0; t < W; ++t)
    out[t] = r[t];
}

/// dst[l * s + t] = in[t][l] for t < W (the inverse of load_transposed).
template <typename V, typename IV, typename T, int64_t W>
__attribute__((always_inline)) inline void
store_transposed(const V * __restrict in, T * __restrict dst, int64_t s)
{
  V r[W];
  for (int64_t t = 0; t < W; ++t)
    r[t] = in[t];
  transpose<V, IV, W>(r);
  for (int64_t l = 0; l < W; ++l)
    std::memcpy(dst + l * s, &r[l], sizeof(V));
}

/// Whether any lane of the comparison mask `m` (lanes -1 or 0) is set: a shuffle-and-or fold.
template <typename IV, int64_t W, int64_t Half = W / 2>
__attribute__((always_inline)) inline bool
any_lane(IV m)
{
  if constexpr (Half == 0)
    return m[0] != 0;
  else
  {
    IV rot{};
    for (int64_t j = 0; j < W; ++j)
      rot[j] = (j + Half) % W;
    return any_lane<IV, W, Half / 2>(m | __builtin_shuffle(m, rot));
  }
}

/// Swap rows c and p[l] (columns j0 .. cols - 1 of the row-major `m`) in every lane l whose p[l]
/// differs from c: one masked exchange of whole vectors per distinct pivot row (lane-by-lane
/// scalar swaps would stall on store forwarding when the vectors are read back).
template <typename V, typename IV, typename I, int64_t W>
__attribute__((always_inline)) inline void
swap_rows(V * __restrict m, int64_t cols, int64_t j0, int64_t c, const IV & p)
{
  IV done = p == static_cast<I>(c);
  if (!any_lane<IV, W>(~done))
    return;
  V * __restrict rc = m + c * cols;
  for (int64_t l = 0; l < W; ++l)
  {
    if (done[l])
      continue;
    const auto mask = p == p[l];
    V * __restrict rp = m + p[l] * cols;
    for (int64_t j = j0; j < cols; ++j)
    {
      const V u = rc[j], v = rp[j];
      rc[j] = mask ? v : u;
      rp[j] = mask ? u : v;
    }
    done |= mask;
  }
}

/// Lane vector x[r] <-> entry `off` of the W elements' right-hand sides (nk apart), one scalar
/// move per lane. `load` picks the direction.
template <typename V, typename T, int64_t W, bool load>
__attribute__((always_inline)) inline void
move_entry(T * __restrict xp, V * __restrict x, int64_t nk, int64_t r, int64_t off)
{
  for (int64_t l = 0; l < W; ++l)
    if constexpr (load)
      x[r][l] = xp[l * nk + off];
    else
      xp[l * nk + off] = x[r][l];
}

/// Lane vectors x[r .. r + W - 1] <-> entries off .. off + W - 1 of the W elements' right-hand
/// sides (nk apart): W vector moves and a transpose. `load` picks the direction.
template <typename V, typename IV, typename T, int64_t W, bool load>
__attribute__((always_inline)) inline void
move_run(T * __restrict xp, V * __restrict x, int64_t nk, int64_t r, int64_t off)
{
  if constexpr (load)
    load_transposed<V, IV, T, W>(xp + off, nk, x + r);
  else
    store_transposed<V, IV, T, W>(x + r, xp + off, nk);
}

/// Columns q0 .. q0 + kc - 1 of the W elements' right-hand sides (xp, n x k row-major each, nk =
/// n k apart) <-> the lane vectors x (n x kc row-major). `load` picks the direction.
///
/// Every helper a lane kernel calls is an always_inline function, never a lambda: a lambda is
/// compiled without the caller's target("avx...") attribute, so out of line it would run legacy
/// SSE code inside AVX code (measured: each such call left the following ATen kernels of the
/// process up to 5x slower, the SSE/AVX transition penalty).
template <typename V, typename IV, typename T, int64_t W, bool load>
__attribute__((always_inline)) inline void
move_rhs(T * __restrict xp, V * __restrict x, int64_t n, int64_t k, int64_t q0, int64_t kc)
{
  const int64_t nk = n * k;
  if (kc == k) // every column: the rows are one run of n k entries
  {
    int64_t r = 0;
    for (; r + W <= nk; r += W)
      move_run<V, IV, T, W, load>(xp, x, nk, r, r);
    for (; r < nk; ++r)
      move_entry<V, T, W, load>(xp, x, nk, r, r);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
  {
    int64_t q = 0;
    for (; q + W <= kc; q += W)
      move_run<V, IV, T, W, load>(xp, x, nk, i * kc + q, i * k + q0 + q);
    for (; q < kc; ++q)
      move_entry<V, T, W, load>(xp, x, nk, i * kc + q, i * k + q0 + q);
  }
}

/// Back substitution of the kc right-hand sides x (n x kc) through the upper triangle of a, by
/// columns: x_i = x_i / a_ii is final, then x_r -= a_ri x_i for every row r above it. Row r thus
/// subtracts its terms from j = n - 1 down to r + 1, as solve_one does; unlike a row-by-row dot
/// product, the updates of one step are independent (no chain of dependent subtractions).
/// `inv_diag` holds 1 / a_ii, computed once by the elimination (a_ii is final after its step).
template <typename V>
__attribute__((always_inline)) inline void
back_substitute(
    const V * __restrict a, const V * __restrict inv_diag, V * __restrict x, int64_t n, int64_t kc)
{
  for (int64_t i = n - 1; i >= 0; --i)
  {
    const V inv = inv_diag[i];
    for (int64_t q = 0; q < kc; ++q)
      x[i * kc + q] *= inv;
    for (int64_t r = 0; r < i; ++r)
    {
      const V m = a[r * n + i];
      for (int64_t q = 0; q < kc; ++q)
        x[r * kc + q] -= m * x[i * kc + q];
    }
  }
}

/// Per lane, keep (best, piv) or take (|v|, row) when |v| > best: one step of a pivot search.
template <typename V, typename IV, typename I>
__attribute__((always_inline)) inline void
pivot_step(V v, int64_t row, V & best, IV & piv)
{
  v = v < V{} ? -v : v;
  const auto gt = v > best;
  best = gt ? v : best;
  piv = gt ? IV{} + static_cast<I>(row) : piv;
}

/// Per lane, the first row of largest magnitude in column c at or below the diagonal (NaNs never
/// win; a NaN diagonal keeps row c), as solve_one's sequential search picks it. Two independent
/// searches over the upper and lower halves of the rows, merged with ties to the upper one,
/// halve the chain of dependent compare-and-selects. The lower half starts below any magnitude.
template <typename V, typename IV, typename I>
__attribute__((always_inline)) inline IV
pivot_rows(const V * __restrict a, int64_t n, int64_t c)
{
  const int64_t mid = c + 1 + (n - c - 1) / 2;
  V best0 = a[c * n + c];
  best0 = best0 < V{} ? -best0 : best0;
  V best1 = V{} - 1;
  IV piv0 = IV{} + static_cast<I>(c), piv1 = piv0;
  for (int64_t t = 0; mid + t < n; ++t)
  {
    if (c + 1 + t < mid)
      pivot_step<V, IV, I>(a[(c + 1 + t) * n + c], c + 1 + t, best0, piv0);
    pivot_step<V, IV, I>(a[(mid + t) * n + c], mid + t, best1, piv1);
  }
  return best1 > best0 ? piv1 : piv0;
}

/// Rows rows[0 .. na - 1] (below the pivot row c, multipliers m[0 .. na - 1]) of a (columns
/// c + 1 .. n - 1, row-major n x n) and of x (kc columns) less their multiple of row c, four rows
/// at a time: each pivot-row vector is loaded once per group and the loop overhead is shared.
/// Every entry sees the scalar kernel's one operation v - m * p (no contraction).
template <typename V>
__attribute__((always_inline)) inline void
eliminate_rows(V * __restrict a,
               V * __restrict x,
               int64_t n,
               int64_t kc,
               int64_t c,
               const int64_t * __restrict rows,
               const V * __restrict m,
               int64_t na)
{
  const V * __restrict ac = a + c * n;
  const V * __restrict xc = x + c * kc;
  int64_t t = 0;
  for (; t + 4 <= na; t += 4)
  {
    V * __restrict a0 = a + rows[t] * n;
    V * __restrict a1 = a + rows[t + 1] * n;
    V * __restrict a2 = a + rows[t + 2] * n;
    V * __restrict a3 = a + rows[t + 3] * n;
    const V m0 = m[t], m1 = m[t + 1], m2 = m[t + 2], m3 = m[t + 3];
    for (int64_t j = c + 1; j < n; ++j)
    {
      const V p = ac[j];
      a0[j] -= m0 * p;
      a1[j] -= m1 * p;
      a2[j] -= m2 * p;
      a3[j] -= m3 * p;
    }
    V * __restrict x0 = x + rows[t] * kc;
    V * __restrict x1 = x + rows[t + 1] * kc;
    V * __restrict x2 = x + rows[t + 2] * kc;
    V * __restrict x3 = x + rows[t + 3] * kc;
    for (int64_t q = 0; q < kc; ++q)
    {
      const V p = xc[q];
      x0[q] -= m0 * p;
      x1[q] -= m1 * p;
      x2[q] -= m2 * p;
      x3[q] -= m3 * p;
    }
  }
  for (; t < na; ++t)
  {
    V * __restrict ai = a + rows[t] * n;
    V * __restrict xi = x + rows[t] * kc;
    const V mi = m[t];
    for (int64_t j = c + 1; j < n; ++j)
      ai[j] -= mi * ac[j];
    for (int64_t q = 0; q < kc; ++q)
      xi[q] -= mi * xc[q];
  }
}

/// Elements e0 .. e0 + W - 1 of the entry table `e` and xp (n*k each, row-major).
/// NF > 0 fixes n at compile time (the matrix then lives on the stack); NF == 0 uses n_rt and
/// the scratch `a_rt` (n*n vectors). `x` is n * min(k, kRhsChunk) vectors of scratch.
///
/// The elimination updates the first kRhsChunk right-hand sides as it goes and keeps its
/// multipliers (below the diagonal) and pivots; further columns are solved kRhsChunk at a time by
/// replaying them, so the lane scratch stays in L1 for many right-hand sides (the IFT solves
/// have one per given component). Every right-hand side entry sees the same operations in the
/// same order either way.
template <typename T, int Bytes, int64_t NF>
__attribute__((always_inline)) inline void
lanes_body(const Entries<T> & e,
           int64_t e0,
           T * __restrict xp,
           int64_t n_rt,
           int64_t k,
           typename Lanes<T, Bytes>::V * __restrict a_rt,
           typename Lanes<T, Bytes>::V * __restrict x)
{
  using L = Lanes<T, Bytes>;
  using V = typename L::V;
  using IV = typename L::IV;
  using I = typename L::I;
  constexpr int64_t W = L::W;
  const int64_t n = NF > 0 ? NF : n_rt;
  V a_ct[NF > 0 ? NF * NF : 1];
  V * __restrict a = NF > 0 ? a_ct : a_rt;
  IV pivots[batched_dense_solve_max_n];
  for (const LoadOp<T> & op : e.plan)
  {
    const int64_t ij = op.ij, s = op.stride;
    const T * p = op.base + e0 * s;
    switch (op.kind)
    {
      case Load::BatchInner:
        for (int64_t t = 0; t < op.count; ++t, p += op.delta)
        {
          // n*n separate streams are too many for the hardware prefetchers: fetch groups ahead
          __builtin_prefetch(p + kPrefetchGroups * W, 0, 1);
          std::memcpy(&a[ij + t], p, sizeof(V));
        }
        break;
      case Load::Broadcast:
        a[ij] = V{} + *p;
        break;
      case Load::Row:
        load_transposed<V, IV, T, W>(p, s, a + ij);
        break;
      case Load::Column:
      {
        V col[W];
        load_transposed<V, IV, T, W>(p, s, col);
        for (int64_t t = 0; t < W; ++t)
          a[ij + t * n] = col[t];
        break;
      }
      case Load::Scalar:
        for (int64_t l = 0; l < W; ++l)
          a[ij][l] = p[l * s];
        break;
    }
  }
  const int64_t kc0 = std::min(k, kRhsChunk);
  move_rhs<V, IV, T, W, true>(xp, x, n, k, 0, kc0);
  const V zero = V{};
  V inv_diag[batched_dense_solve_max_n];
  int64_t rows[batched_dense_solve_max_n];
  V mult[batched_dense_solve_max_n];
  for (int64_t c = 0; c < n; ++c)
  {
    const IV piv = pivot_rows<V, IV, I>(a, n, c);
    pivots[c] = piv;
    // columns left of c hold the multipliers of their step, by position: they stay in place
    swap_rows<V, IV, I, W>(a, n, c, c, piv);
    swap_rows<V, IV, I, W>(x, kc0, 0, c, piv);
    const V inv = T(1) / a[c * n + c];
    inv_diag[c] = inv;
    int64_t na = 0;
    for (int64_t i = c + 1; i < n; ++i)
    {
      const V m = a[i * n + c] * inv;
      a[i * n + c] = m;
      if (!any_lane<IV, W>(m != zero)) // exact zeros in every lane (sparse Jacobians)
        continue;
      rows[na] = i;
      mult[na++] = m;
    }
    eliminate_rows(a, x, n, kc0, c, rows, mult, na);
  }
  back_substitute(a, inv_diag, x, n, kc0);
  move_rhs<V, IV, T, W, false>(xp, x, n, k, 0, kc0);
  for (int64_t q0 = kc0; q0 < k; q0 += kRhsChunk)
  {
    const int64_t kc = std::min(kRhsChunk, k - q0);
    move_rhs<V, IV, T, W, true>(xp, x, n, k, q0, kc);
    for (int64_t c = 0; c < n; ++c)
    {
      swap_rows<V, IV, I, W>(x, kc, 0, c, pivots[c]);
      for (int64_t i = c + 1; i < n; ++i)
      {
        const V m = a[i * n + c];
        if (!any_lane<IV, W>(m != zero))
          continue;
        for (int64_t q = 0; q < kc; ++q)
          x[i * kc + q] -= m * x[c * kc + q];
      }
    }
    back_substitute(a, inv_diag, x, n, kc);
    move_rhs<V, IV, T, W, false>(xp, x, n, k, q0, kc);
  }
}

template <typename T>
using LaneKernel = void (*)(const Entries<T> &, int64_t, T *, int64_t, int64_t, void *, void *);

template <typename T, int64_t NF>
__attribute__((target("avx512f"))) void
lanes_avx512(const Entries<T> & e, int64_t e0, T * xp, int64_t n, int64_t k, void * a, void * x)
{
  using V = typename Lanes<T, 64>::V;
  lanes_body<T, 64, NF>(e, e0, xp, n, k, static_cast<V *>(a), static_cast<V *>(x));
}

template <typename T, int64_t NF>
__attribute__((target("avx2"))) void
lanes_avx2(const Entries<T> & e, int64_t e0, T * xp, int64_t n, int64_t k, void * a, void * x)
{
  using V = typename Lanes<T, 32>::V;
  lanes_body<T, 32, NF>(e, e0, xp, n, k, static_cast<V *>(a), static_cast<V *>(x));
}

template <typename T, std::size_t... I>
constexpr std::array<LaneKernel<T>, sizeof...(I)>
lane_table_avx512(std::index_sequence<I...>)
{
  return {&lanes_avx512<T, static_cast<int64_t>(I)>...};
}

template <typename T, std::size_t... I>
constexpr std::array<LaneKernel<T>, sizeof...(I)>
lane_table_avx2(std::index_sequence<I...>)
{
  return {&lanes_avx2<T, static_cast<int64_t>(I)>...};
}

/// The lane kernel of `path` for n (compile-time n up to kUnrolled) and its vector width in
/// bytes; {nullptr, 0} for the scalar path. `path` must be supported (require_simd_path).
template <typename T>
std::pair<LaneKernel<T>, int>
lane_kernel_for(int64_t n, SimdPath path)
{
  static constexpr auto t512 = lane_table_avx512<T>(std::make_index_sequence<kUnrolled + 1>{});
  static constexpr auto t256 = lane_table_avx2<T>(std::make_index_sequence<kUnrolled + 1>{});
  const auto idx = static_cast<std::size_t>(n <= kUnrolled ? n : 0);
  switch (path)
  {
    case SimdPath::avx512:
      return {t512[idx], 64};
    case SimdPath::avx2:
      return {t256[idx], 32};
    default:
      return {nullptr, 0};
  }
}
#endif

/// x <- A^-1 x for the B elements of the entry table `e` (x (B, n, k) contiguous), on `path`.
template <typename T>
void
solve_native(Entries<T> e, int64_t B, at::Tensor & x, int64_t n, int64_t k, SimdPath path)
{
  TORCH_INTERNAL_ASSERT(n >= 1 && n <= batched_dense_solve_max_n && k >= 1);
#if NEML2_AOTI_X86_SIMD
  const auto lane_kernel = lane_kernel_for<T>(n, path);
  const LaneKernel<T> lanes = lane_kernel.first;
  const int64_t bytes = lane_kernel.second, W = bytes / static_cast<int64_t>(sizeof(T));
  if (lanes)
    e.plan = load_plan(e, n, W);
#else
  (void)path;
#endif
  const T * const * ptr = e.ptr.data();
  const int64_t * st = e.stride.data();
  T * xp = x.mutable_data_ptr<T>();
  const auto kernel = kernel_for<T>(n);
  // Aim for chunks of at least ~64k flops so threading overhead stays negligible.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / (n * n * (n + k)));
  at::parallel_for(0,
                   B,
                   grain,
                   [&](int64_t begin, int64_t end)
                   {
#if NEML2_AOTI_X86_SIMD
                     if (lanes && n > 1 && end - begin >= W)
                     {
                       // lane scratch, one vector (`bytes`, aligned to it) per entry: the
                       // right-hand sides (n * min(k, kRhsChunk)) and, for n > kUnrolled, A
                       const int64_t kc = std::min(k, kRhsChunk);
                       const int64_t vecs = n * kc + (n > kUnrolled ? n * n : 0);
                       AlignedScratch scratch(static_cast<std::size_t>(vecs * bytes),
                                              static_cast<std::size_t>(bytes));
                       auto * vx = static_cast<T *>(scratch.data());
                       T * va = vx + n * kc * W;
                       for (; begin + W <= end; begin += W)
                         lanes(e, begin, xp + begin * n * k, n, k, va, vx);
                     }
#endif
                     std::vector<T> scratch(static_cast<std::size_t>(n * n));
                     for (int64_t i = begin; i < end; ++i)
                       kernel(ptr, st, i, xp + i * n * k, n, k, scratch.data());
                   });
}

std::string
shape_str(const at::Tensor & t)
{
  std::string s = "(";
  for (int64_t d = 0; d < t.dim(); ++d)
    s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + ")";
}

void
check_inputs(const at::Tensor & A, const at::Tensor & b)
{
  const std::string who = "batched_dense_solve: ";
  if (!A.defined() || !b.defined())
    throw FatalError(who + (A.defined() ? "b" : "A") + " is an undefined tensor");
  if (A.dim() != 3 || A.size(1) != A.size(2))
    throw FatalError(who + "A must be (B, n, n), got " + shape_str(A));
  if ((b.dim() != 2 && b.dim() != 3) || b.size(0) != A.size(0) || b.size(1) != A.size(1))
    throw FatalError(who + "b must be (B, n) or (B, n, k) matching A " + shape_str(A) + ", got " +
                     shape_str(b));
  if (A.scalar_type() != b.scalar_type())
    throw FatalError(who + "A has dtype " + c10::toString(A.scalar_type()) + " but b has " +
                     c10::toString(b.scalar_type()));
  if (A.device() != b.device())
    throw FatalError(who + "A is on " + A.device().str() + " but b is on " + b.device().str());
}

void
check_parts(const std::vector<MatrixPart> & parts, int64_t n, const at::Tensor & b)
{
  const std::string who = "batched_parts_solve: ";
  if (!b.defined() || (b.dim() != 2 && b.dim() != 3) || b.size(1) != n)
    throw FatalError(who + "b must be (B, " + std::to_string(n) + ") or (B, " + std::to_string(n) +
                     ", k), got " + (b.defined() ? shape_str(b) : "an undefined tensor"));
  for (std::size_t i = 0; i < parts.size(); ++i)
  {
    const auto & p = parts[i];
    const auto at = who + "part " + std::to_string(i) + " ";
    if (!p.t.defined() || p.t.dim() != 3 || (p.t.size(0) != b.size(0) && p.t.size(0) != 1))
      throw FatalError(at + "must be (B, rows, cols) with B = " + std::to_string(b.size(0)) +
                       " (or 1), got " + (p.t.defined() ? shape_str(p.t) : "an undefined tensor"));
    if (p.row < 0 || p.col < 0 || p.row + p.t.size(1) > n || p.col + p.t.size(2) > n)
      throw FatalError(at + shape_str(p.t) + " at row " + std::to_string(p.row) + ", column " +
                       std::to_string(p.col) + " does not fit an " + std::to_string(n) + " x " +
                       std::to_string(n) + " matrix");
    if (p.t.scalar_type() != b.scalar_type() || p.t.device() != b.device())
      throw FatalError(at + "has dtype " + c10::toString(p.t.scalar_type()) + " on " +
                       p.t.device().str() + " but b has " + c10::toString(b.scalar_type()) +
                       " on " + b.device().str());
  }
}

/// The bytes [first, last) that t's elements span (t non-empty; torch strides are >= 0).
std::pair<const char *, const char *>
byte_span(const at::Tensor & t)
{
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d)
    last += (t.size(d) - 1) * t.stride(d);
  const auto * first = static_cast<const char *>(t.const_data_ptr());
  return {first, first + (last + 1) * static_cast<int64_t>(t.element_size())};
}

/// Whether a and b may share memory: the same storage and overlapping byte spans.
bool
may_share_memory(const at::Tensor & a, const at::Tensor & b)
{
  if (a.numel() == 0 || b.numel() == 0 || !a.storage().is_alias_of(b.storage()))
    return false;
  const auto [a0, a1] = byte_span(a);
  const auto [b0, b1] = byte_span(b);
  return a0 < b1 && b0 < a1;
}

/// Whether x = A^-1 b may be solved in b's own memory: asked for, b contiguous (the layout the
/// kernel writes) and sharing no memory with any part (each element's entries are read while
/// earlier elements' solutions are already written).
bool
solvable_in_place(const std::vector<MatrixPart> & parts, const at::Tensor & b, bool overwrite_b)
{
  if (!overwrite_b || !b.is_contiguous())
    return false;
  for (const auto & p : parts)
    if (may_share_memory(b, p.t))
      return false;
  return true;
}

/// x = A^-1 b through the entry table of `parts` (checked; CPU float32/float64, n small); in b's
/// memory when solvable_in_place, else in a new contiguous tensor.
at::Tensor
solve_parts_native(const std::vector<MatrixPart> & parts,
                   int64_t n,
                   const at::Tensor & b,
                   SimdPath path,
                   bool overwrite_b)
{
  const int64_t k = b.dim() == 2 ? 1 : b.size(2);
  at::Tensor x = b;
  if (!solvable_in_place(parts, b, overwrite_b))
  {
    x = at::empty(b.sizes(), b.options().memory_format(at::MemoryFormat::Contiguous));
    x.copy_(b);
  }
  if (x.numel() == 0)
    return x;
  if (b.scalar_type() == at::kDouble)
    solve_native<double>(entries<double>(parts, n), b.size(0), x, n, k, path);
  else
    solve_native<float>(entries<float>(parts, n), b.size(0), x, n, k, path);
  return x;
}

/// The dense (B, n, n) matrices of `parts`, B and dtype/device those of `like` (B, ...).
at::Tensor
assemble_parts(const std::vector<MatrixPart> & parts, int64_t n, const at::Tensor & like)
{
  auto A = at::zeros({like.size(0), n, n}, like.options());
  for (const auto & p : parts)
    A.narrow(1, p.row, p.t.size(1)).narrow(2, p.col, p.t.size(2)).copy_(p.t);
  return A;
}

bool
native_ok(const at::Tensor & t, int64_t n)
{
  const auto dtype = t.scalar_type();
  return t.device().is_cpu() && (dtype == at::kDouble || dtype == at::kFloat) &&
         n <= batched_dense_solve_max_n && !t.requires_grad();
}
} // namespace

at::Tensor
batched_dense_solve(const at::Tensor & A,
                    const at::Tensor & b,
                    std::optional<SimdPath> path,
                    bool overwrite_b)
{
  const auto chosen = kernel_simd_path(path, "batched_dense_solve");
  check_inputs(A, b);
  const int64_t n = A.size(1);
  if (native_ok(A, n) && !b.requires_grad())
    return solve_parts_native({MatrixPart{0, 0, A}}, n, b, chosen, overwrite_b);
  const bool vector_rhs = b.dim() == 2;
  auto rhs = vector_rhs ? b.unsqueeze(-1) : b;
  auto x = std::get<0>(at::linalg_solve_ex(A, rhs, /*left=*/true, /*check_errors=*/false));
  return vector_rhs ? x.squeeze(-1) : x;
}

at::Tensor
batched_parts_solve(const std::vector<MatrixPart> & parts,
                    int64_t n,
                    const at::Tensor & b,
                    std::optional<SimdPath> path,
                    bool overwrite_b)
{
  const auto chosen = kernel_simd_path(path, "batched_parts_solve");
  check_parts(parts, n, b);
  bool native = native_ok(b, n);
  for (const auto & p : parts)
    native = native && !p.t.requires_grad();
  if (native)
    return solve_parts_native(parts, n, b, chosen, overwrite_b);
  return batched_dense_solve(assemble_parts(parts, n, b), b, path, overwrite_b);
}
} // namespace neml2::aoti
