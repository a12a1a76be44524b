// The residual / Jacobian graphs of an implicit segment as a NewtonProblem (private).
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

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
  SegmentProblem(const ImplicitSegment & seg, std::vector<at::Tensor> tail)
    : _seg(seg),
      _tail(std::move(tail))
  {
  }

  /// Givens from the call state.
  SegmentProblem(const ImplicitSegment & seg, const CallState & s, const std::vector<VarInfo> & vars)
    : _seg(seg)
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
    return _seg.residual->run(args(u), 1)[0];
  }

  std::pair<at::Tensor, at::Tensor> residual_and_jacobian(const at::Tensor & u) override
  {
    auto out = _seg.jacobian->run(args(u), 2);
    last_u = u;
    last_A = out[1];
    return {std::move(out[0]), std::move(out[1])};
  }

  /// A at `u` when the last Jacobian evaluation was at this very tensor, else undefined.
  at::Tensor jacobian_if_at(const at::Tensor & u) const
  {
    return last_u.defined() && last_u.is_same(u) ? last_A : at::Tensor();
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
  at::Tensor last_u, last_A;
  const ImplicitSegment & _seg;
  std::vector<at::Tensor> _tail;
};
} // namespace neml2::aoti
