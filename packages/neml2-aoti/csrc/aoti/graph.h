// One compiled .pt2 graph of a leaf, loaded with torch's AOTIModelPackageLoader (private).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace torch::inductor
{
class AOTIModelPackageLoader;
}

namespace neml2::aoti
{
/// One tensor argument or result of a graph, as neml2-compile recorded it in the package
/// (ARTIFACT.md §3 "Graph signature"): -1 is the batch axis.
struct TensorSpec
{
  std::string dtype;  // "float64", "float32"
  std::string device; // device type: "cpu", "cuda"
  std::vector<int64_t> shape;
  /// "float64 cpu [B, 6]" (B for the batch axis; * for any size).
  std::string str() const;
};

/// The arguments and results a graph's package says it takes and returns.
struct GraphSignature
{
  std::vector<TensorSpec> inputs, outputs;
  /// Batches the graph takes ("batch_rows", ARTIFACT.md §1): multiples of row_multiple, at
  /// least min_rows (1 and 1: any batch).
  int64_t row_multiple = 1, min_rows = 1;
  /// The rows a call of `rows` rows runs on: rows rounded up to a multiple of row_multiple, at
  /// least min_rows.
  int64_t padded_rows(int64_t rows) const;
};

/// The signature neml2-compile embeds in a graph's package (metadata key "neml2_signature", a
/// JSON text); `what` names it in errors. Read in metadata.cpp, with the artifact's other JSON.
GraphSignature parse_graph_signature(const std::string & text, const std::string & what);

/// FatalError (naming the file) unless graph file `path` exists and its bytes hash to `sha1`
/// (hex, from metadata.json's leaves[].sha1). Graph's constructor checks its own file with it;
/// read_artifact_metadata checks every file a leaf records.
void verify_graph_file(const std::string & path, const std::string & sha1);

class Graph
{
public:
  /// Load `path`; a cuda device with an index pins the graph to that GPU. FatalError (naming the
  /// file) when verify_graph_file refuses it (checked before the package is opened), when torch
  /// refuses it, or when it carries no signature.
  Graph(const std::string & path, const c10::Device & device, const std::string & sha1);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph & operator=(const Graph &) = delete;

  /// Run the graph; the inputs are consumed (the loader steals them). A batch the graph does
  /// not take (GraphSignature::padded_rows) runs padded with copies of its row 0 (zeros for an
  /// empty batch), and every batched output is cut back to the call's rows.
  std::vector<at::Tensor> run(std::vector<at::Tensor> && inputs) const;
  /// Run and check the number of outputs (FatalError naming the graph otherwise).
  std::vector<at::Tensor> run(std::vector<at::Tensor> && inputs, std::size_t n_outputs) const;

  const std::string & file() const { return _file; }
  const GraphSignature & signature() const { return _signature; }

private:
  std::string _file;
  GraphSignature _signature;
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> _loader;
};
} // namespace neml2::aoti
