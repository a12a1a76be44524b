#include "neml2/csrc/aoti/env.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string>

namespace neml2::aoti
{
bool
env_truthy(const char * value) noexcept
{
  if (value == nullptr)
    return false;
  std::string s(value);
  const auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), is_space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), is_space).base(), s.end());
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  static constexpr std::array<const char *, 5> falsy{"", "0", "false", "no", "off"};
  return std::none_of(falsy.begin(), falsy.end(), [&](const char * f) { return s == f; });
}

bool
env_flag(const char * name) noexcept
{
  return env_truthy(std::getenv(name));
}

bool
capture_solve_failure() noexcept
{
  return env_flag("NEML2_CAPTURE_SOLVE_FAILURE");
}
} // namespace neml2::aoti
