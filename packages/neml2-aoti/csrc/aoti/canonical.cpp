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

/// Check one input against its specification; return its (*batch, *sub, *base) view.
at::Tensor
check_input(const std::string & what,
            const std::string & name,
            const at::Tensor & value,
            const std::vector<int64_t> & sub,
            const std::vector<int64_t> & base,
            const c10::Device & device,
            c10::ScalarType dtype)
{
  if (!value.defined())
    throw FatalError(what + " '" + name + "' is an undefined tensor");
  const auto shape = value.sizes();
  auto trailing = sub;
  trailing.insert(trailing.end(), base.begin(), base.end());
  const auto nt = static_cast<int64_t>(trailing.size());
  const bool trailing_ok =
      value.dim() >= nt && shape.slice(value.dim() - nt) == c10::IntArrayRef(trailing);
  if (!trailing_ok)
  {
    if (sub.empty())
      throw FatalError(what + " '" + name + "': non-canonical shape " + format_shape(shape) +
                       ", expected trailing base shape " + format_shape(base) +
                       " (canonical shape is (*batch, *base))");
    throw FatalError(what + " '" + name + "': non-canonical shape " + format_shape(shape) +
                     ", expected trailing shape " + format_shape(trailing) + " (sub-batch shape " +
                     format_shape(sub) + ", base shape " + format_shape(base) +
                     "; canonical shape is (*batch, *sub_batch, *base))");
  }
  if (value.scalar_type() != dtype)
    throw FatalError(what + " '" + name + "' has dtype " + c10::toString(value.scalar_type()) +
                     " but the model expects " + c10::toString(dtype) + " (inputs are never cast)");
  if (!device_matches(device, value.device()))
    throw FatalError(what + " '" + name + "' is on device " + value.device().str() +
                     " but the model runs on " + device.str() + " (inputs are never moved)");
  return value;
}
} // namespace

CanonicalInputs
canonicalize_inputs(const TensorMap & inputs,
                    const std::vector<std::string> & names,
                    const std::vector<std::vector<int64_t>> & base_shapes,
                    const c10::Device & device,
                    c10::ScalarType dtype,
                    const CanonicalOptions & options)
{
  const auto & what = options.what;
  const auto & subs = options.sub_batch_shapes;
  if (names.size() != base_shapes.size())
    throw FatalError("canonicalize_inputs: " + std::to_string(names.size()) + " input names but " +
                     std::to_string(base_shapes.size()) + " base shapes");
  if (!subs.empty() && subs.size() != names.size())
    throw FatalError("canonicalize_inputs: " + std::to_string(names.size()) + " input names but " +
                     std::to_string(subs.size()) + " sub-batch shapes");
  const std::set<std::string> expected(names.begin(), names.end());
  for (const auto & [name, value] : inputs)
    if (!expected.count(name))
      throw FatalError("unexpected " + what + " '" + name +
                       "'; the model's inputs are: " + join(names));
  if (options.required)
    for (const auto & name : names)
      if (!inputs.count(name))
        throw FatalError("missing " + what + " '" + name +
                         "'; the model's inputs are: " + join(names));

  static const std::vector<int64_t> none;
  std::vector<std::size_t> present;
  std::vector<at::Tensor> checked;
  present.reserve(names.size());
  checked.reserve(names.size());
  std::vector<int64_t> batch;
  std::vector<std::string> preceding;
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    const auto it = inputs.find(names[i]);
    if (it == inputs.end())
      continue;
    const auto & sub = subs.empty() ? none : subs[i];
    checked.push_back(check_input(what, names[i], it->second, sub, base_shapes[i], device, dtype));
    const auto & v = checked.back();
    const auto nt = static_cast<int64_t>(sub.size() + base_shapes[i].size());
    const auto lead = v.sizes().slice(0, v.dim() - nt);
    try
    {
      batch = present.empty() ? lead.vec() : at::infer_size(batch, lead);
    }
    catch (const std::exception &)
    {
      throw FatalError(what + " '" + names[i] + "': batch shape " + format_shape(lead) +
                       " does not broadcast with the batch shape " + format_shape(batch) +
                       " of the preceding " + what + "s (" + join(preceding) + ")");
    }
    present.push_back(i);
    preceding.push_back(names[i]);
  }

  CanonicalInputs result;
  result.batch_shape = batch;
  for (std::size_t k = 0; k < present.size(); ++k)
  {
    const auto i = present[k];
    if (!options.expand)
    {
      result.values.emplace(names[i], checked[k]);
      continue;
    }
    auto shape = batch;
    if (!subs.empty())
      shape.insert(shape.end(), subs[i].begin(), subs[i].end());
    shape.insert(shape.end(), base_shapes[i].begin(), base_shapes[i].end());
    result.values.emplace(names[i], checked[k].expand(shape).contiguous());
  }
  return result;
}

std::vector<int64_t>
broadcast_batch_shapes(const std::vector<std::vector<int64_t>> & shapes)
{
  std::vector<int64_t> batch;
  try
  {
    for (std::size_t k = 0; k < shapes.size(); ++k)
      batch = k == 0 ? shapes[k] : at::infer_size(batch, shapes[k]);
  }
  catch (const std::exception &)
  {
    std::string listed;
    for (const auto & s : shapes)
      listed += (listed.empty() ? "" : ", ") + format_shape(s);
    throw FatalError("batch shapes " + listed + " do not broadcast");
  }
  return batch;
}
} // namespace neml2::aoti
