// The guard every public runtime call runs through (docs/design/runtime.md, "Guard"): neml2
// exceptions pass through unchanged; anything else (c10::Error, std::bad_alloc, any
// std::exception, unknown throws) becomes FatalError("<op>: <what>") so a host only ever sees the
// neml2 taxonomy.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include <c10/util/Exception.h>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
template <typename F>
decltype(auto)
guard(const char * op, F && f)
{
  try
  {
    return std::forward<F>(f)();
  }
  catch (const Exception &)
  {
    throw;
  }
  catch (const c10::Error & e)
  {
    throw FatalError(std::string(op) + ": " + e.what_without_backtrace());
  }
  catch (const std::exception & e)
  {
    throw FatalError(std::string(op) + ": " + e.what());
  }
  catch (...)
  {
    throw FatalError(std::string(op) + ": unknown exception");
  }
}
} // namespace neml2::aoti
