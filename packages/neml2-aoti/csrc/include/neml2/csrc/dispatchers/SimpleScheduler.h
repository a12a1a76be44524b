// NEML2 v3 header path of SimpleScheduler: one device, fixed-size chunks on the caller's thread.
// The class (and its v3 constructor SimpleScheduler(const SimpleScheduler::Config &)) is declared
// in WorkScheduler.h.
#pragma once

#include "neml2/csrc/dispatchers/WorkScheduler.h"
