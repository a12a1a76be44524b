// Private helpers of the NEML2 v3 configuration structs of the schedulers (SimpleScheduler::Config,
// StaticHybridScheduler::Config, MPISimpleScheduler::Config): strings and size_t to our types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <c10/core/Device.h>

namespace neml2::aoti
{
/// c10::Device of a torch device string; FatalError naming `who` when it is malformed.
c10::Device parse_device(const std::string & device, const char * who);
/// `value` as int64_t; FatalError naming `who` and `option` when it does not fit.
int64_t checked_size(std::size_t value, const char * who, const char * option);
} // namespace neml2::aoti
