// StaticHybridScheduler: greedy assignment by priority under per-device capacities.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/dispatchers/AsyncScheduler.h"
#include "compat.h"

namespace neml2::aoti
{
namespace
{
/// A per-device option list: length 1 is shared by every device, otherwise one value per device.
std::vector<int64_t>
expand(std::vector<int64_t> values,
       std::size_t n,
       const char * option,
       std::vector<int64_t> fallback)
{
  if (values.empty())
    values = std::move(fallback);
  if (values.size() == 1)
    values.assign(n, values.front());
  if (values.size() != n)
    throw FatalError(std::string("StaticHybridScheduler: ") + option + " has " +
                     std::to_string(values.size()) + " entries for " + std::to_string(n) +
                     " devices (give 1 or one per device)");
  return values;
}

std::vector<c10::Device>
checked_devices(std::vector<c10::Device> devices)
{
  if (devices.empty())
    throw FatalError("StaticHybridScheduler: at least one device is required");
  const auto cpus = std::count_if(
      devices.begin(), devices.end(), [](const c10::Device & d) { return d.is_cpu(); });
  if (cpus > 1)
    throw FatalError("StaticHybridScheduler: at most one cpu device is allowed");
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
    {
      if (devices[i] == devices[j])
        throw FatalError("StaticHybridScheduler: device " + devices[i].str() + " is listed twice");
      if (devices[i].type() == devices[j].type() && !devices[i].is_cpu() &&
          devices[i].has_index() != devices[j].has_index())
        throw FatalError("StaticHybridScheduler: " + devices[j].str() + " and " + devices[i].str() +
                         " mix a bare device type with an indexed one");
    }
  return devices;
}
} // namespace

StaticHybridScheduler::StaticHybridScheduler(std::vector<c10::Device> devices,
                                             std::vector<int64_t> batch_sizes,
                                             std::vector<int64_t> capacities,
                                             std::vector<int64_t> priorities)
  : AsyncScheduler(checked_devices(devices))
{
  const auto n = devices.size();
  _batch_sizes = expand(std::move(batch_sizes), n, "batch_sizes", {});
  _capacities = expand(std::move(capacities), n, "capacities", _batch_sizes);
  _priorities = expand(std::move(priorities), n, "priorities", {1});
  for (std::size_t i = 0; i < n; ++i)
  {
    if (_batch_sizes[i] <= 0)
      throw FatalError("StaticHybridScheduler: batch size of " + devices[i].str() +
                       " must be > 0, got " + std::to_string(_batch_sizes[i]));
    if (_capacities[i] < _batch_sizes[i])
      throw FatalError("StaticHybridScheduler: capacity of " + devices[i].str() + " (" +
                       std::to_string(_capacities[i]) + ") is below its batch size (" +
                       std::to_string(_batch_sizes[i]) + ")");
  }
}

namespace
{
std::vector<c10::Device>
parse_devices(const std::vector<std::string> & devices)
{
  std::vector<c10::Device> out;
  out.reserve(devices.size());
  for (const auto & d : devices)
    out.push_back(parse_device(d, "StaticHybridScheduler"));
  return out;
}

std::vector<int64_t>
sizes(const std::vector<std::size_t> & values, const char * option)
{
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (auto v : values)
    out.push_back(checked_size(v, "StaticHybridScheduler", option));
  return out;
}

/// Each priority's rank among the distinct values (ties share a rank): the greedy order is kept.
std::vector<int64_t>
ranks(const std::vector<double> & priorities)
{
  for (auto p : priorities)
    if (!std::isfinite(p))
      throw FatalError("StaticHybridScheduler: priorities must be finite, got " +
                       std::to_string(p));
  auto distinct = priorities;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<int64_t> out;
  out.reserve(priorities.size());
  for (auto p : priorities)
    out.push_back(std::lower_bound(distinct.begin(), distinct.end(), p) - distinct.begin());
  return out;
}
} // namespace

StaticHybridScheduler::StaticHybridScheduler(const Config & config)
  : StaticHybridScheduler(parse_devices(config.devices),
                          sizes(config.batch_sizes, "batch_sizes"),
                          sizes(config.capacities, "capacities"),
                          ranks(config.priorities))
{
}

StaticHybridScheduler::~StaticHybridScheduler() = default;

const std::vector<int64_t> &
StaticHybridScheduler::batch_sizes() const
{
  return _batch_sizes;
}

const std::vector<int64_t> &
StaticHybridScheduler::capacities() const
{
  return _capacities;
}

const std::vector<int64_t> &
StaticHybridScheduler::priorities() const
{
  return _priorities;
}

std::optional<WorkChunk>
StaticHybridScheduler::next_chunk(int64_t begin,
                                  int64_t remaining,
                                  const std::vector<int64_t> & load) const
{
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < _batch_sizes.size(); ++i)
    if (load[i] + _batch_sizes[i] <= _capacities[i] &&
        (!best || _priorities[i] > _priorities[*best]))
      best = i;
  if (!best)
    return std::nullopt;
  return WorkChunk{*best, begin, std::min(_batch_sizes[*best], remaining)};
}
} // namespace neml2::aoti
