// The private state of neml2::aoti::Model: the parsed artifact, its loaded graphs and the
// per-call machinery. Variables are addressed by integer slot ids assigned at load time, so a
// call works on a std::vector<at::Tensor> state rather than name-keyed maps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/allocator.h"
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "graph.h"
#include "newton.h"
#include "neml2/csrc/aoti/types.h"

namespace neml2::aoti
{
/// Product of the extents of a shape (1 for an empty shape).
inline int64_t
prod(const std::vector<int64_t> & v)
{
  int64_t n = 1;
  for (auto x : v)
    n *= x;
  return n;
}

/// A variable of the artifact: (*batch, *sub_batch, *base) at the boundary, `size` =
/// prod(sub_batch) * prod(base) when flattened.
struct VarInfo
{
  std::string name;
  std::string type;
  std::vector<int64_t> base;
  std::vector<int64_t> sub;
  int64_t size = 1;
  /// sub + base: the trailing shape after the batch axes.
  std::vector<int64_t> trailing() const;
};

/// A compiled derivative pair d(out)/d(in) (or d(out)/d(param)) of one segment.
struct PairInfo
{
  int out = -1; // slot id
  int in = -1;  // slot id, or parameter index for parameter pairs
  bool batch_independent = false;
  /// A folded constant block (metadata "value"): (1, *out_trailing, *in_trailing), as the jvp
  /// graph would return it; undefined when the block comes from a graph.
  at::Tensor constant;
};

/// A promoted parameter.
struct ParamInfo
{
  std::string name;
  std::vector<int64_t> base;
  int64_t size = 1;
};

/// A packed member of a flat implicit vector (unknowns, givens or residuals).
struct PackedVar
{
  int slot = -1;
  int64_t offset = 0;
  int64_t size = 1;
  std::string role; // givens: old_state | old_force | cur_force | static
  int pair = -1;    // givens: slot of the paired variable (old_state -> unknown, forces)
};

struct ForwardSegment
{
  std::vector<int> inputs, outputs;
  std::vector<int> params; // parameter indices, fed after the inputs
  std::unique_ptr<Graph> value, jvp, pjac;
  std::vector<PairInfo> pairs, param_pairs;
  /// Every Jacobian block is a folded constant: the value graph plus those constants stand in
  /// for a jvp graph.
  bool constant_jvp = false;
  bool has_jvp() const { return jvp || constant_jvp; }
};

struct ImplicitSegment
{
  std::vector<PackedVar> unknowns, givens;
  int64_t n_unknown = 0, n_given = 0;
  std::vector<int> params;
  std::unique_ptr<Graph> residual, jacobian, jacobian_given, dr_dparam, predictor;
  std::vector<int> predictor_inputs, predictor_outputs;
  /// An identity predictor (no graph): predictor output k copies variable copy_from[k].
  std::vector<int> predictor_copy_from;
  /// Warm starts: (input slot, unknown slot) pairs from "guesses".
  std::vector<std::pair<int, int>> guesses;
  /// Columns of the _jacobian_given (Bg) and _dr_dparam (Bp) matrices: (slot or parameter
  /// index, offset, size).
  std::vector<PackedVar> given_columns, param_columns;
  int64_t n_given_columns = 0, n_param_columns = 0;
  /// Runtime-looped predictor: feed predictor output `feedback_output` back as input
  /// `feedback_input` for `feedback_iterations` calls (-1: none).
  int feedback_input = -1, feedback_output = -1;
  int64_t feedback_iterations = 0;
  int64_t max_substepping_level = 0;
  /// Row i of every graph output depends on row i of the arguments only (checked by
  /// neml2-compile): the graphs may run on row blocks.
  bool rows_independent = false;
  /// The row block neml2-compile chose for these graphs (metadata "chunk_rows"; 0: none
  /// recorded, SolverConfig::default_chunk_rows).
  int64_t chunk_rows = 0;
};

struct Segment
{
  bool implicit = false;
  ForwardSegment fwd;
  ImplicitSegment imp;
};

/// Per-call inputs after canonicalization: the state slots and the flattened batch.
struct CallState
{
  std::vector<at::Tensor> slots; // each (Bflat, *sub, *base) or undefined
  std::vector<int64_t> batch;    // the call's batch shape
  int64_t nbatch = 1;            // rows fed to the graphs: prod(batch), padded to min_batch
  int64_t ncall = 1;             // rows of the call: prod(batch)
  /// The call's rows of a (nbatch, ...) result.
  at::Tensor rows(const at::Tensor & t) const
  {
    return t.size(0) > ncall ? t.narrow(0, 0, ncall) : t;
  }
  std::vector<at::Tensor> params; // each (Bflat, *param_base) or (*param_base) (see prepare)
  /// Per implicit segment: the converged flat unknowns and A there (when Newton computed it),
  /// reused by the IFT instead of another _jacobian call.
  std::map<const void *, std::pair<at::Tensor, RowBlocks>> converged;
};

/// Adaptive substepping solve of an implicit segment (substep.cpp); sets `substepped` when any
/// step halving was needed.
at::Tensor substep_solve(const ImplicitSegment & seg,
                         const CallState & s,
                         const std::vector<VarInfo> & vars,
                         const SolverConfig & config,
                         const at::Tensor & u0,
                         bool & substepped);

/// Compare every loaded graph's embedded signature with the arguments and results metadata.json
/// implies for it (graph_specs.cpp); FatalError naming `src`, the graph, the position and the
/// variable at the first difference.
class ModelImpl;
void check_graph_signatures(const ModelImpl & m, const std::string & src);

/// "float64" or "float32": an artifact leaf's dtype folder and graph-signature dtype
/// (FatalError for another dtype).
std::string dtype_folder(c10::ScalarType t);

/// The artifact folder of `path`: the folder itself, or the folder of its metadata file
/// (metadata.json, or NEML2 v3's <model>_meta.json, which need not exist). FatalError for another
/// existing file.
std::filesystem::path artifact_folder(const std::filesystem::path & path);

class ModelImpl
{
public:
  /// `root`: see artifact_folder.
  ModelImpl(const std::filesystem::path & root, c10::Device device, c10::ScalarType dtype);

  TensorMap forward(const TensorMap & inputs, const TensorMap & overrides);
  JvpResult jvp(const TensorMap & inputs, const TensorMap & tangents, const TensorMap & overrides);
  /// Public blocks: jacobian_full with the site-diagonal pairs as their diagonals.
  JacobianResult jacobian(const TensorMap & inputs, const TensorMap & overrides);
  /// Every block (*B, *out_trailing, *in_trailing): the full per-site matrix.
  JacobianResult jacobian_full(const TensorMap & inputs, const TensorMap & overrides);
  /// Trailing shape (behind the batch axes) of the public block J[out][in].
  std::vector<int64_t> block_shape(const std::string & out, const std::string & in) const;
  JacobianResult param_jacobian(const TensorMap & inputs, const TensorMap & overrides);
  TensorMap
  param_vjp(const TensorMap & inputs, const TensorMap & cotangents, const TensorMap & overrides);
  void set_parameter(const std::string & name, const at::Tensor & value);

  // ---- loaded description (read-only after construction) ----
  std::filesystem::path root;
  c10::Device device;
  c10::ScalarType dtype;
  std::vector<VarInfo> vars; // every slot
  std::unordered_map<std::string, int> slot_of;
  std::vector<int> input_slots, output_slots;
  std::vector<std::string> input_names, output_names, input_types, output_types;
  BaseShapes input_base, output_base;
  /// Declared sub-batch shape of each input / output (between the batch and the base axes).
  BaseShapes input_sub, output_sub;
  std::vector<ParamInfo> params;
  std::vector<Segment> segments;
  std::vector<std::pair<std::string, std::string>> derivatives, parameter_derivatives;
  /// Pairs of `derivatives` returned as their site diagonal (*B, *S, *out_base, *in_base)
  /// (metadata "site_diagonal_derivatives"; ARTIFACT.md §3.1, "Sub-batched pairs").
  std::set<std::pair<std::string, std::string>> site_diagonal;
  /// Graphs traced for a fixed batch (dynamic_batch false): the only accepted batch size.
  int64_t fixed_batch = -1;
  /// Smallest batch every graph accepts; a smaller call batch is padded by repeating row 0.
  int64_t min_batch = 1;

  // ---- mutable ----
  TensorMap named_parameters;
  SolverConfig config;
  /// Row block of the graphs of `seg`: SolverConfig::chunk_rows, or with the automatic setting
  /// the segment's recorded block (else SolverConfig::default_chunk_rows); 0 for fixed-batch
  /// graphs or rows that are not independent; at least 2 min_batch (so every equal block is a
  /// batch the graphs accept).
  ///
  /// Unless the host kept large allocations in the heap (keep_large_allocations), the automatic
  /// block is also capped so that one block's Newton matrix stays within
  /// unkept_block_matrix_bytes: glibc then serves these buffers from its heap (its mmap threshold
  /// adapts up to 32 MiB) and keeps them there, instead of mapping and page-faulting them afresh
  /// on every Newton iteration (Chaboche step at 10^5, AVX2 path, no opt-ins: 2.37 s in one
  /// block, 1.75 s in blocks of 8192 rows).
  int64_t chunk_rows(const ImplicitSegment & seg) const
  {
    int64_t rows = config.chunk_rows != SolverConfig::auto_chunk_rows ? config.chunk_rows
                   : seg.chunk_rows > 0                               ? seg.chunk_rows
                                        : SolverConfig::default_chunk_rows;
    if (config.chunk_rows == SolverConfig::auto_chunk_rows && !large_allocations_kept())
    {
      const int64_t row_bytes =
          std::max<int64_t>(1, seg.n_unknown * seg.n_unknown) * c10::elementSize(dtype);
      rows = std::min(rows, std::max<int64_t>(1, unkept_block_matrix_bytes / row_bytes));
    }
    if (fixed_batch >= 0 || !seg.rows_independent || rows <= 0)
      return 0;
    return std::max<int64_t>(rows, 2 * min_batch);
  }
  std::vector<std::string> log;
  std::mutex mutex;
  /// Per parameter: its last per-batch broadcast (B, *shape), reused while the stored tensor
  /// (identity and version counter) and B are unchanged, so an unchanged promoted parameter is
  /// not re-broadcast and copied on every call.
  struct ParamCache
  {
    at::Tensor source;    // held, so its identity cannot be reused by another tensor
    int64_t version = -1; // the source's _version() when cached
    int64_t nbatch = -1;
    at::Tensor value;
  };
  mutable std::vector<ParamCache> param_cache;
  /// The compiled model's block name (metadata "name"; empty when not recorded).
  std::string model_name;
  /// "compiled model '<name>' (<root>)": how errors name the model.
  std::string label() const;
  /// Whether the last implicit solve needed substeps (its IFT derivatives are then unavailable).
  bool substepped = false;

private:
  friend struct MetadataReader;
  CallState prepare(const TensorMap & inputs, const TensorMap & overrides) const;
  void run_segments(CallState & s);
  void run_forward(const ForwardSegment & seg, CallState & s) const;
  /// Solve `seg`'s unknowns into the call state. `keep_jacobian`: keep Newton's last A for an IFT
  /// that follows (derivative calls); a forward call frees each block's A once it is used.
  void run_implicit(const ImplicitSegment & seg, CallState & s, bool keep_jacobian);
  TensorMap collect_outputs(const CallState & s) const;
  /// A (*batch, *trailing) tensor of an empty batch (no elements).
  at::Tensor empty_of(const CallState & s, const std::vector<int64_t> & trailing) const;
  /// The outputs of a call with no rows (an empty batch: no graph runs).
  TensorMap empty_outputs(const CallState & s) const;
  at::Tensor param_for_call(std::size_t i, const TensorMap & overrides, int64_t nbatch) const;
  /// Run every segment while carrying dstate[slot] = d(slot)/d(requested inputs), each
  /// (Bflat or 1, size, M) or undefined (zero); returns the carriers.
  std::vector<at::Tensor> run_with_carrier(CallState & s, const std::vector<int> & requested);
  /// Propagate the carrier through a converged implicit segment (IFT: du = -A^{-1} dr/dg dg).
  void
  implicit_ift(const ImplicitSegment & seg, CallState & s, std::vector<at::Tensor> & dstate) const;
  /// Parameter carrier through an implicit segment: du/dtheta = -A^{-1} (dr/dtheta + dr/dg dg).
  void implicit_param_ift(const ImplicitSegment & seg,
                          CallState & s,
                          std::vector<at::Tensor> & dparam,
                          const std::vector<int64_t> & pcol,
                          int64_t P) const;
  /// Run a forward segment's `_jvp` graph on the call state: stores the values in their slots and
  /// returns the graph's outputs (values first, then one block per `seg.pairs` entry).
  std::vector<at::Tensor> run_jvp(const ForwardSegment & seg, CallState & s) const;
  /// The single-forward-segment fast path: one _jvp graph call, blocks returned as they are.
  bool fast_jacobian(CallState & s, VariablePairJacobian & J) const;
  /// The requested input slots (distinct `in` of derivatives, in input order).
  std::vector<int> requested_inputs() const;
};
} // namespace neml2::aoti
