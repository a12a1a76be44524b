// SyncScheduler / SimpleScheduler: fixed-size chunks on the caller's thread.
#include "neml2/csrc/dispatchers/WorkScheduler.h"

#include <algorithm>
#include <limits>
#include <string>

#include "neml2/csrc/aoti/Exception.h"
#include "compat.h"

namespace neml2::aoti
{
c10::Device
parse_device(const std::string & device, const char * who)
{
  try
  {
    return c10::Device(device);
  }
  catch (const std::exception &)
  {
    throw FatalError(std::string(who) + ": '" + device +
                     "' is not a torch device (e.g. cpu, cuda, cuda:1)");
  }
}

int64_t
checked_size(std::size_t value, const char * who, const char * option)
{
  if (value > std::size_t(std::numeric_limits<int64_t>::max()))
    throw FatalError(std::string(who) + ": " + option + " " + std::to_string(value) +
                     " is out of range");
  return int64_t(value);
}

WorkScheduler::~WorkScheduler() = default;

SyncScheduler::SyncScheduler(c10::Device device, int64_t batch_size)
  : _devices{device},
    _batch_size(batch_size)
{
  if (batch_size < 0)
    throw FatalError("SyncScheduler: batch_size must be >= 0 (0 = no chunking), got " +
                     std::to_string(batch_size));
}

SyncScheduler::~SyncScheduler() = default;

const std::vector<c10::Device> &
SyncScheduler::devices() const
{
  return _devices;
}

bool
SyncScheduler::synchronous() const
{
  return true;
}

c10::Device
SyncScheduler::device() const
{
  return _devices.front();
}

int64_t
SyncScheduler::batch_size() const
{
  return _batch_size;
}

void
SyncScheduler::run(int64_t batch, const Work & work)
{
  const int64_t step = _batch_size > 0 ? _batch_size : std::max<int64_t>(batch, 1);
  for (int64_t begin = 0; begin < batch; begin += step)
    work(WorkChunk{0, begin, std::min(step, batch - begin)});
}

SimpleScheduler::SimpleScheduler(c10::Device device, int64_t batch_size)
  : SyncScheduler(device, batch_size)
{
}

SimpleScheduler::SimpleScheduler(const Config & config)
  : SimpleScheduler(parse_device(config.device, "SimpleScheduler"),
                    checked_size(config.batch_size, "SimpleScheduler", "batch_size"))
{
}

SimpleScheduler::~SimpleScheduler() = default;
} // namespace neml2::aoti
