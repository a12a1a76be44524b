#include "chunking.h"

#include <algorithm>

#include <ATen/ATen.h>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti::chunking
{
BaseNdims
base_ndims(const std::vector<std::string> & names, const BaseShapes & shapes)
{
  BaseNdims out;
  for (std::size_t i = 0; i < names.size() && i < shapes.size(); ++i)
    out[names[i]] = int64_t(shapes[i].size());
  return out;
}

BaseNdims
trailing_ndims(const std::vector<std::string> & names,
               const BaseShapes & base,
               const BaseShapes & sub)
{
  auto out = base_ndims(names, base);
  for (std::size_t i = 0; i < names.size() && i < sub.size(); ++i)
    if (auto it = out.find(names[i]); it != out.end())
      it->second += int64_t(sub[i].size());
  return out;
}

BaseNdims
base_ndims(const std::map<std::string, std::vector<int64_t>> & shapes)
{
  BaseNdims out;
  for (const auto & [name, shape] : shapes)
    out[name] = int64_t(shape.size());
  return out;
}

namespace
{
int64_t
base_of(const BaseNdims & base, const std::string & name, const at::Tensor & value)
{
  const auto it = base.find(name);
  return it == base.end() ? value.dim() : it->second;
}
} // namespace

Batch
find_batch(const TensorMap & inputs, const BaseNdims & base)
{
  Batch batch;
  for (const auto & [name, value] : inputs)
    if (value.defined())
      batch.ndim = std::max(batch.ndim, value.dim() - base_of(base, name, value));
  if (batch.ndim <= 0)
    return Batch{};
  for (const auto & [name, value] : inputs)
    if (value.defined() && value.dim() - base_of(base, name, value) == batch.ndim)
      batch.size = std::max(batch.size, value.size(0));
  for (const auto & [name, value] : inputs)
    if (value.defined() && value.dim() - base_of(base, name, value) == batch.ndim &&
        value.size(0) != 1 && value.size(0) != batch.size)
      throw FatalError("DispatchedModel: input '" + name + "' has leading batch size " +
                       std::to_string(value.size(0)) + ", neither 1 nor the call batch " +
                       std::to_string(batch.size));
  return batch;
}

bool
is_cut(const at::Tensor & value, int64_t base_ndim, const Batch & batch, bool exact_ndim)
{
  if (!value.defined() || batch.size <= 1)
    return false;
  const auto batch_ndim = value.dim() - base_ndim;
  if (exact_ndim ? batch_ndim != batch.ndim : batch_ndim < 1)
    return false;
  return value.size(0) == batch.size;
}

TensorMap
slice(const TensorMap & values,
      const BaseNdims & base,
      const Batch & batch,
      bool exact_ndim,
      int64_t begin,
      int64_t size,
      const c10::Device & device)
{
  TensorMap out;
  for (const auto & [name, value] : values)
  {
    if (!value.defined())
    {
      out.emplace(name, value);
      continue;
    }
    const auto base_nd = base.count(name) ? base.at(name) : value.dim();
    const bool cut = is_cut(value, base_nd, batch, exact_ndim) && size != batch.size;
    out.emplace(name, (cut ? value.narrow(0, begin, size) : value).to(device));
  }
  return out;
}

TensorMap
concat(const std::vector<TensorMap> & chunks, const c10::Device & device)
{
  TensorMap out;
  if (chunks.empty())
    return out;
  for (const auto & [name, first] : chunks.front())
  {
    if (chunks.size() == 1 || !first.defined())
    {
      out.emplace(name, first.defined() ? first.to(device) : first);
      continue;
    }
    std::vector<at::Tensor> parts;
    parts.reserve(chunks.size());
    for (const auto & chunk : chunks)
      parts.push_back(chunk.at(name).to(device));
    out.emplace(name, at::cat(parts, 0));
  }
  return out;
}

BlockNdims
block_ndims(const BaseNdims & out_base, const BaseNdims & in_base)
{
  BlockNdims out;
  for (const auto & [y, ny] : out_base)
    for (const auto & [x, nx] : in_base)
      out[y][x] = ny + nx;
  return out;
}

VariablePairJacobian
concat_blocks(const std::vector<VariablePairJacobian> & chunks,
              const BlockNdims & ndims,
              const c10::Device & device)
{
  VariablePairJacobian out;
  if (chunks.empty())
    return out;
  for (const auto & [y, row] : chunks.front())
    for (const auto & [x, first] : row)
    {
      // a block without batch axes (a constant a model returns once) is every chunk's; the
      // compiled runtime's batch-independent blocks are broadcast views, concatenated as usual
      const auto row = ndims.find(y);
      const bool unbatched =
          row != ndims.end() && row->second.count(x) && first.dim() == row->second.at(x);
      if (chunks.size() == 1 || unbatched || !first.defined())
      {
        out[y].emplace(x, first.defined() ? first.to(device) : first);
        continue;
      }
      std::vector<at::Tensor> parts;
      parts.reserve(chunks.size());
      for (const auto & chunk : chunks)
        parts.push_back(chunk.at(y).at(x).to(device));
      out[y].emplace(x, at::cat(parts, 0));
    }
  return out;
}

TensorMap
reduce_adjoints(const std::vector<TensorMap> & chunks,
                const std::set<std::string> & batched,
                const c10::Device & device)
{
  if (!batched.empty())
  {
    TensorMap out;
    std::vector<TensorMap> cat_part(chunks.size()), sum_part(chunks.size());
    for (std::size_t i = 0; i < chunks.size(); ++i)
      for (const auto & [name, value] : chunks[i])
        (batched.count(name) ? cat_part : sum_part)[i].emplace(name, value);
    out = concat(cat_part, device);
    for (auto & [name, value] : reduce_adjoints(sum_part, {}, device))
      out.emplace(name, std::move(value));
    return out;
  }
  TensorMap out;
  for (std::size_t i = 0; i < chunks.size(); ++i)
    for (const auto & [name, value] : chunks[i])
    {
      auto moved = value.to(device);
      auto it = out.find(name);
      if (it == out.end())
        out.emplace(name, i + 1 == chunks.size() ? moved : moved.clone());
      else
        it->second.add_(moved);
    }
  return out;
}
} // namespace neml2::aoti::chunking
