// One compiled .pt2 graph of a leaf, loaded with torch's AOTIModelPackageLoader (private).
#pragma once

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
class Graph
{
public:
  /// Load `path`; a cuda device with an index pins the graph to that GPU. FatalError (naming the
  /// file) when it is missing or torch refuses it.
  Graph(const std::string & path, const c10::Device & device);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph & operator=(const Graph &) = delete;

  /// Run the graph; the inputs are consumed (the loader steals them).
  std::vector<at::Tensor> run(std::vector<at::Tensor> && inputs) const;
  /// Run and check the number of outputs (FatalError naming the graph otherwise).
  std::vector<at::Tensor> run(std::vector<at::Tensor> && inputs, std::size_t n_outputs) const;

  const std::string & file() const { return _file; }

private:
  std::string _file;
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> _loader;
};
} // namespace neml2::aoti
