// NEML2 v2-style authoring types over the cpp-eager route (docs/cpp/eager.md): dtype and
// device aliases, the process-wide default dtype and the default tensor options.
#pragma once

#include <string>

#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>

#include "neml2/csrc/eager/python.h"

namespace neml2
{
using Dtype = c10::ScalarType;
using Device = c10::Device;
using TensorOptions = c10::TensorOptions;
/// A C++ number (int, double, bool, ...) as torch's Scalar.
using CScalar = c10::Scalar;
/// Variable names are plain strings ("a", "a~1").
using VariableName = std::string;

constexpr auto kBool = c10::kBool;
constexpr auto kInt32 = c10::kInt;
constexpr auto kInt64 = c10::kLong;
constexpr auto kFloat16 = c10::kHalf;
constexpr auto kFloat32 = c10::kFloat;
constexpr auto kFloat64 = c10::kDouble;
constexpr auto kCPU = c10::kCPU;
constexpr auto kCUDA = c10::kCUDA;

/// Set torch's default floating-point dtype (shared with the embedded interpreter): tensors made
/// with default_tensor_options() and models loaded by neml2::load_model use it. FatalError for a
/// dtype that is not floating point.
NEML2_EAGER_EXPORT void set_default_dtype(Dtype dtype);
/// torch's default floating-point dtype (kFloat32 unless set).
NEML2_EAGER_EXPORT Dtype get_default_dtype();
/// Options of a new tensor: the default dtype, on the CPU.
NEML2_EAGER_EXPORT TensorOptions default_tensor_options();
} // namespace neml2
