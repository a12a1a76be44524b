#include "neml2/csrc/aoti/canonical.h"

#include <set>
#include <sstream>

#include <ATen/ExpandUtils.h>
#include <ATen/ops/unsqueeze.h>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
std::string
format_shape(c10::IntArrayRef shape)
{
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

namespace
{
std::string
join(const std::vector<std::string> & names)
{
  std::string s;
  for (const auto & n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

bool
device_matches(const c10::Device & expected, const c10::Device & actual)
{
  if (expected.type() != actual.type())
    return false;
  return !expected.has_index() || expected.index() == actual.index();
}

/// Check one input against its specification; return its (*batch, *base) view.
at::Tensor
check_input(const std::string & name,
            const at::Tensor & value,
            const std::vector<int64_t> & base,
            const c10::Device & device,
            c10::ScalarType dtype)
{
  if (!value.defined())
    throw FatalError("input '" + name + "' is an undefined tensor");
  const auto shape = value.sizes();
  const auto nbase = static_cast<int64_t>(base.size());
  const bool trailing_ok =
      value.dim() >= nbase && shape.slice(value.dim() - nbase) == c10::IntArrayRef(base);
  if (!trailing_ok)
    throw FatalError("input '" + name + "': non-canonical shape " + format_shape(shape) +
                     ", expected trailing base shape " + format_shape(base) +
                     " (canonical shape is (*batch, *base))");
  if (value.scalar_type() != dtype)
    throw FatalError("input '" + name + "' has dtype " + c10::toString(value.scalar_type()) +
                     " but the model expects " + c10::toString(dtype) + " (inputs are never cast)");
  if (!device_matches(device, value.device()))
    throw FatalError("input '" + name + "' is on device " + value.device().str() +
                     " but the model runs on " + device.str() + " (inputs are never moved)");
  return value;
}
} // namespace

CanonicalInputs
canonicalize_inputs(const TensorMap & inputs,
                    const std::vector<std::string> & names,
                    const std::vector<std::vector<int64_t>> & base_shapes,
                    const c10::Device & device,
                    c10::ScalarType dtype)
{
  if (names.size() != base_shapes.size())
    throw FatalError("canonicalize_inputs: " + std::to_string(names.size()) + " input names but " +
                     std::to_string(base_shapes.size()) + " base shapes");
  const std::set<std::string> expected(names.begin(), names.end());
  for (const auto & [name, value] : inputs)
    if (!expected.count(name))
      throw FatalError("unexpected input '" + name + "'; the model's inputs are: " + join(names));
  for (const auto & name : names)
    if (!inputs.count(name))
      throw FatalError("missing input '" + name + "'; the model's inputs are: " + join(names));

  std::vector<at::Tensor> checked;
  checked.reserve(names.size());
  std::vector<int64_t> batch;
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    checked.push_back(check_input(names[i], inputs.at(names[i]), base_shapes[i], device, dtype));
    const auto & v = checked.back();
    const auto lead = v.sizes().slice(0, v.dim() - static_cast<int64_t>(base_shapes[i].size()));
    try
    {
      batch = i == 0 ? lead.vec() : at::infer_size(batch, lead);
    }
    catch (const std::exception &)
    {
      throw FatalError("input '" + names[i] + "': batch shape " + format_shape(lead) +
                       " does not broadcast with the batch shape " + format_shape(batch) +
                       " of the preceding inputs (" +
                       join(std::vector<std::string>(names.begin(), names.begin() + i)) + ")");
    }
  }

  CanonicalInputs result;
  result.batch_shape = batch;
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    auto shape = batch;
    shape.insert(shape.end(), base_shapes[i].begin(), base_shapes[i].end());
    result.values.emplace(names[i], checked[i].expand(shape).contiguous());
  }
  return result;
}
} // namespace neml2::aoti
