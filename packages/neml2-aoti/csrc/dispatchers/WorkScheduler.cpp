// SyncScheduler / SimpleScheduler: fixed-size chunks on the caller's thread.
#include "neml2/csrc/dispatchers/WorkScheduler.h"

#include <algorithm>
#include <string>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
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

SimpleScheduler::~SimpleScheduler() = default;
} // namespace neml2::aoti
