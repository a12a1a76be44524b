// Environment switches of the runtime.
#pragma once

#include <string_view>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// "Truthy" as the runtime reads switches: anything except unset (nullptr), "", "0", "false",
/// "no", "off" -- compared case-insensitively after trimming surrounding whitespace.
NEML2_AOTI_EXPORT bool env_truthy(const char * value) noexcept;

/// env_truthy(getenv(name)).
NEML2_AOTI_EXPORT bool env_flag(const char * name) noexcept;

/// NEML2_CAPTURE_SOLVE_FAILURE: re-run a failing solve in masked mode so the ConvergenceError
/// carries converged_mask() and unknowns().
NEML2_AOTI_EXPORT bool capture_solve_failure() noexcept;
} // namespace neml2::aoti
