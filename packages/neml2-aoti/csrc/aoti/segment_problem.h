// The residual / Jacobian graphs of an implicit segment as a NewtonProblem (private).
#pragma once

#include <algorithm>
#include <vector>

#include <ATen/ATen.h>

#include "graph.h"
#include "model_impl.h"
#include "newton.h"
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
/// The residual / Jacobian graphs with the givens and parameters bound: (u, *givens, *params).
class SegmentProblem : public NewtonProblem
{
public:
  /// Givens and parameters bound explicitly: tail = (*givens, *params), each (B, ...).
  /// `chunk_rows` > 0: graphs run on row blocks of at most that many rows (run_rows).
  SegmentProblem(const ImplicitSegment & seg, std::vector<at::Tensor> tail, int64_t chunk_rows)
    : _seg(seg),
      _tail(std::move(tail)),
      _chunk(chunk_rows)
  {
  }

  /// Whether residual_jacobian_step keeps A for jacobian_if_at (an IFT that follows the solve
  /// reuses it). Off, each row block's A is freed as soon as its step is solved: the solve then
  /// holds one block's matrices instead of the whole batch's, and the next block's graph call
  /// reuses their memory.
  void keep_jacobian(bool keep) { _keep_A = keep; }

  /// Givens from the call state.
  SegmentProblem(const ImplicitSegment & seg,
                 const CallState & s,
                 const std::vector<VarInfo> & vars,
                 int64_t chunk_rows)
    : _seg(seg),
      _chunk(chunk_rows)
  {
    _tail.reserve(seg.givens.size() + seg.params.size());
    for (const auto & g : seg.givens)
    {
      if (!s.slots[g.slot].defined())
        throw FatalError("implicit segment: given '" + vars[g.slot].name +
                         "' is not available (neither an input nor produced by an earlier "
                         "segment)");
      _tail.push_back(s.slots[g.slot]);
    }
    for (int i : seg.params)
      _tail.push_back(s.params[i]);
  }

  at::Tensor residual(const at::Tensor & u) override
  {
    if (!_seg.residual)
      return residual_and_jacobian(u).first;
    return run_rows(*_seg.residual, u, 1)[0];
  }

  std::pair<at::Tensor, RowBlocks> residual_and_jacobian(const at::Tensor & u) override
  {
    forget_jacobian();
    auto out = run_blocks(*_seg.jacobian, u, 2);
    last_u = u;
    last_A = RowBlocks(std::move(out[1]));
    return {concat(out[0]), last_A};
  }

  /// Each row block's step solved right after its graph call (its A still in cache). With
  /// several blocks, b and du go straight into whole-batch tensors allocated before the first
  /// block, so that nothing a block leaves behind sits in the memory its graph call used: the
  /// next block's call reuses it rather than growing the heap (whose freed top glibc returns
  /// to the system, to be page-faulted in again, once it exceeds its trim threshold).
  NewtonEvaluation residual_jacobian_step(const at::Tensor & u) override
  {
    std::vector<at::Tensor> A;
    at::Tensor b, du;
    forget_jacobian();
    const bool whole = blocks(*_seg.jacobian, u.size(0)) == 1;
    if (!whole)
    {
      b = at::empty_like(u, at::MemoryFormat::Contiguous);
      du = at::empty_like(u, at::MemoryFormat::Contiguous);
    }
    for_each_block(*_seg.jacobian,
                   u,
                   2,
                   [&](int64_t r0, int64_t rows, std::vector<at::Tensor> && out)
                   {
                     auto step = dense_solve(out[1], out[0]);
                     if (whole)
                     {
                       b = std::move(out[0]);
                       du = std::move(step);
                     }
                     else
                     {
                       b.narrow(0, r0, rows).copy_(out[0]);
                       du.narrow(0, r0, rows).copy_(step);
                     }
                     if (_keep_A)
                       A.push_back(std::move(out[1]));
                   });
    last_u = u;
    last_A = RowBlocks(std::move(A));
    return {b, last_A, du};
  }

  /// A at `u` when the last Jacobian evaluation was at this very tensor, else undefined.
  RowBlocks jacobian_if_at(const at::Tensor & u) const
  {
    return last_u.defined() && last_u.is_same(u) ? last_A : RowBlocks();
  }

  /// `graph` on (u, *tail), each output as one (B, ...) tensor (see run_blocks).
  std::vector<at::Tensor>
  run_rows(const Graph & graph, const at::Tensor & u, std::size_t n_out) const
  {
    auto blocks = run_blocks(graph, u, n_out);
    std::vector<at::Tensor> out;
    out.reserve(n_out);
    for (const auto & b : blocks)
      out.push_back(concat(b));
    return out;
  }

  /// `graph` on (u, *tail): in one call, or, when u has more than chunk_rows rows, on
  /// ceil(B / chunk_rows) equal consecutive row blocks (every argument and output has the batch
  /// on axis 0). Blocks start at multiples of the graph's row multiple, so that only the last
  /// one may need padding (Graph::run). Per output, its row blocks in order.
  std::vector<std::vector<at::Tensor>>
  run_blocks(const Graph & graph, const at::Tensor & u, std::size_t n_out) const
  {
    std::vector<std::vector<at::Tensor>> parts(n_out);
    for_each_block(graph,
                   u,
                   n_out,
                   [&](int64_t, int64_t, std::vector<at::Tensor> && out)
                   {
                     for (std::size_t o = 0; o < n_out; ++o)
                       parts[o].push_back(std::move(out[o]));
                   });
    return parts;
  }

  /// How many row blocks a batch of B rows runs `graph` in (see run_blocks).
  int64_t blocks(const Graph & graph, int64_t B) const
  {
    if (_chunk <= 0 || B <= _chunk)
      return 1;
    const int64_t m = graph.signature().row_multiple;
    return std::min((B + _chunk - 1) / _chunk, (B + m - 1) / m);
  }

  /// Run `graph` on each row block in order (see run_blocks), handing `each` the block's first
  /// row, its row count and its outputs.
  template <typename Each>
  void
  for_each_block(const Graph & graph, const at::Tensor & u, std::size_t n_out, Each && each) const
  {
    const int64_t B = u.size(0);
    const int64_t blocks = this->blocks(graph, B);
    const int64_t m = graph.signature().row_multiple, units = (B + m - 1) / m;
    const auto whole = args(u);
    for (int64_t k = 0; k < blocks; ++k)
    {
      const int64_t r0 = std::min(B, m * (units * k / blocks));
      const int64_t rows = std::min(B, m * (units * (k + 1) / blocks)) - r0;
      std::vector<at::Tensor> a;
      if (blocks == 1)
        a = whole;
      else
      {
        a.reserve(whole.size());
        for (const auto & t : whole)
          a.push_back(t.narrow(0, r0, rows));
      }
      each(r0, rows, graph.run(std::move(a), n_out));
    }
  }

  std::vector<at::Tensor> args(const at::Tensor & u) const
  {
    std::vector<at::Tensor> a;
    a.reserve(1 + _tail.size());
    a.push_back(u);
    a.insert(a.end(), _tail.begin(), _tail.end());
    return a;
  }

private:
  /// Drop the last Jacobian before the graphs allocate the next one, so that two of them are
  /// never alive at once (peak memory, and the allocator can reuse the freed block in place).
  void forget_jacobian()
  {
    last_u = at::Tensor();
    last_A = RowBlocks();
  }

  static at::Tensor concat(const std::vector<at::Tensor> & blocks)
  {
    return blocks.size() == 1 ? blocks.front() : at::cat(blocks, 0);
  }

  at::Tensor last_u;
  RowBlocks last_A;
  const ImplicitSegment & _seg;
  std::vector<at::Tensor> _tail;
  int64_t _chunk = 0;
  bool _keep_A = true;
};
} // namespace neml2::aoti
