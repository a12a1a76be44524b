// NEML2 v3 header path of StaticHybridScheduler: several devices at once, greedy by priority
// under per-device capacities. The class (and its v3 constructor
// StaticHybridScheduler(const StaticHybridScheduler::Config &)) is declared in AsyncScheduler.h.
#pragma once

#include "neml2/csrc/dispatchers/AsyncScheduler.h"
