// Inputs of the eager C++ tests: the scenario input files and canonical random inputs for them.
#pragma once

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/types.h"

namespace scenarios
{
using neml2::aoti::TensorMap;

/// The repository's shared scenarios/<name>.i (the folder comes from the build: NEML2_SCENARIOS).
inline std::string
input_file(const std::string & name)
{
  return std::string(NEML2_SCENARIOS) + "/" + name + ".i";
}

/// inputs/<name>.i, an input only these tests use (the folder comes from the build:
/// NEML2_EAGER_TEST_INPUTS).
inline std::string
test_input_file(const std::string & name)
{
  return std::string(NEML2_EAGER_TEST_INPUTS) + "/" + name + ".i";
}

/// Canonical (*B, *base) inputs of `names` with base shapes `bases`: small random strains (and
/// deformation rates and vorticities), time t = 1 (batch-less, so it broadcasts), t~1 = 0, an x
/// guess of 1 and x~1 in [0.5, 2), grains of random orientation (MRP components in [-0.4, 0.4)),
/// other old states 0. Deterministic for a given seed.
inline TensorMap
inputs(const std::vector<std::string> & names,
       const neml2::aoti::BaseShapes & bases,
       int64_t batch,
       uint64_t seed)
{
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  TensorMap out;
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    const auto & n = names[i];
    std::vector<int64_t> shape{batch};
    shape.insert(shape.end(), bases[i].begin(), bases[i].end());
    if (n == "strain" || n == "deformation_rate" || n == "vorticity")
      out[n] = 1e-3 * at::randn(shape, gen, opts);
    else if (n == "orientation~1")
      out[n] = 0.8 * (at::rand(shape, gen, opts) - 0.5);
    else if (n == "t")
      out[n] = at::ones(bases[i], opts);
    else if (n == "x")
      out[n] = at::ones(shape, opts);
    else if (n == "x~1")
      out[n] = 0.5 + 1.5 * at::rand(shape, gen, opts);
    else
      out[n] = at::zeros(shape, opts);
  }
  return out;
}

/// Random tangents shaped like `inputs` (one per input).
inline TensorMap
tangents(const TensorMap & inputs, uint64_t seed)
{
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  TensorMap out;
  for (const auto & [n, x] : inputs)
    out[n] = at::randn(x.sizes(), gen, x.options());
  return out;
}

/// Same shape and |a - b| <= atol + rtol |b| elementwise.
inline void
expect_close(const at::Tensor & a,
             const at::Tensor & b,
             const std::string & what,
             double rtol = 1e-12,
             double atol = 1e-12)
{
  if (a.sizes() != b.sizes())
    check::fail(
        __FILE__, __LINE__, what + ": shape " + c10::str(a.sizes()) + " != " + c10::str(b.sizes()));
  if (!at::allclose(a, b, rtol, atol))
  {
    std::ostringstream msg;
    msg << what << ": max |diff| = " << std::scientific << std::setprecision(3)
        << (a - b).abs().max().item<double>() << " (rtol " << rtol << ", atol " << atol << ")";
    check::fail(__FILE__, __LINE__, msg.str());
  }
}
} // namespace scenarios
