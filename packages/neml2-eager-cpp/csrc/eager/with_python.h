// Private to libneml2_eager.so: run a piece of code in the embedded interpreter with the GIL held
// and the neml2 error taxonomy applied to whatever it throws.
#pragma once

#include <mutex>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/guard.h"
#include "neml2/csrc/eager/python.h"

namespace neml2::eager::detail
{
/// Rethrow the active Python error as ConvergenceError (the neml2.aoti Python class, with the
/// captured converged_mask / unknowns when present) or FatalError("<op>: <Type>: <message>").
[[noreturn]] void rethrow_python_error(const std::string & op, pybind11::error_already_set & e);

/// Lock `mutex` without holding the GIL while waiting (a Python host thread calling in holds
/// it), so a thread that owns the mutex and waits for the GIL cannot deadlock with us.
inline std::unique_lock<std::mutex>
lock_without_gil(std::mutex * mutex)
{
  if (!mutex)
    return {};
  std::unique_lock<std::mutex> lock(*mutex, std::defer_lock);
  if (PyGILState_Check())
  {
    pybind11::gil_scoped_release release;
    lock.lock();
  }
  else
    lock.lock();
  return lock;
}

/// fn() with the interpreter started and the GIL held (and `serialize` locked when given: torch
/// releases the GIL inside many ops, so the GIL alone does not keep two threads out of one
/// Python model). Python errors and foreign C++ exceptions (a failed cast, c10::Error, ...)
/// leave as neml2::aoti exceptions naming `op`.
template <typename F>
decltype(auto)
with_python(const std::string & op, F && fn, std::mutex * serialize = nullptr)
{
  return aoti::guard(op.c_str(),
                     [&]() -> decltype(auto)
                     {
                       ensure_interpreter();
                       const auto lock = lock_without_gil(serialize);
                       pybind11::gil_scoped_acquire gil;
                       try
                       {
                         return std::forward<F>(fn)();
                       }
                       catch (pybind11::error_already_set & e)
                       {
                         rethrow_python_error(op, e);
                       }
                       catch (const pybind11::cast_error & e)
                       {
                         throw aoti::FatalError(op +
                                                ": unexpected result from Python: " + e.what());
                       }
                     });
}
} // namespace neml2::eager::detail
