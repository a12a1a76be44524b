// Private helpers of DispatchedModel: how a call's batch is found, cut into chunks and the chunk
// results put back together (docs/design/runtime.md, "Chunking rules").
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "neml2/csrc/aoti/types.h"

namespace neml2::aoti::chunking
{
/// Trailing ndim by variable name: the axes behind the batch axes, i.e. the base axes and, for a
/// variable with a declared sub-batch, its sub-batch axes (never cut, never broadcast as batch).
using BaseNdims = std::map<std::string, int64_t>;

BaseNdims base_ndims(const std::vector<std::string> & names, const BaseShapes & shapes);
/// ndim(sub_batch) + ndim(base) of each variable (`sub` may be shorter: missing entries are {}).
BaseNdims trailing_ndims(const std::vector<std::string> & names,
                         const BaseShapes & base,
                         const BaseShapes & sub);
BaseNdims base_ndims(const std::map<std::string, std::vector<int64_t>> & shapes);

/// The batch of one call: B = dim 0 of the inputs with the most batch axes (0 when every input is
/// batch-less). FatalError naming the input when such an input's dim 0 is neither 1 nor B.
struct Batch
{
  int64_t size = 0;
  int64_t ndim = 0;
};
Batch find_batch(const TensorMap & inputs, const BaseNdims & base);

/// Whether a variable is cut per chunk: batch (size > 1), `ndim` batch axes and dim 0 == B.
/// Parameters (exact_ndim = false) only need a leading dim == B in front of their base.
bool is_cut(const at::Tensor & value, int64_t base_ndim, const Batch & batch, bool exact_ndim);

/// Rows [begin, begin + size) of the cut variables, everything moved to device. Names without a
/// base shape in `base` pass through whole.
TensorMap slice(const TensorMap & values,
                const BaseNdims & base,
                const Batch & batch,
                bool exact_ndim,
                int64_t begin,
                int64_t size,
                const c10::Device & device);

/// Chunk maps concatenated on dim 0 (in chunk order), on device.
TensorMap concat(const std::vector<TensorMap> & chunks, const c10::Device & device);

/// Rank of each Jacobian block behind its batch axes, by output then input.
using BlockNdims = std::map<std::string, BaseNdims>;

/// out_base[y] + in_base[x] for every pair (y, x): the full per-site block's rank.
BlockNdims block_ndims(const BaseNdims & out_base, const BaseNdims & in_base);

/// Chunk Jacobian blocks: a block of rank ndims[y][x] (no batch axes) is batch-independent and
/// taken from the first chunk; the others are concatenated on dim 0.
VariablePairJacobian concat_blocks(const std::vector<VariablePairJacobian> & chunks,
                                   const BlockNdims & ndims,
                                   const c10::Device & device);

/// Chunk parameter adjoints: concatenated for the batched parameters, summed for the others.
TensorMap reduce_adjoints(const std::vector<TensorMap> & chunks,
                          const std::set<std::string> & batched,
                          const c10::Device & device);
} // namespace neml2::aoti::chunking
