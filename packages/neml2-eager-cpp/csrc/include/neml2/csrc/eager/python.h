// The embedded-CPython layer of libneml2_eager.so (docs/design/runtime.md, "Eager C++ route").
//
// libneml2_eager.so does not link libpython: a pure C++ host links it itself
// (find_package(Python3 COMPONENTS Development.Embed) -> Python3::Python); a Python host
// supplies the symbols automatically.
#pragma once

#include <string>

#include "neml2/csrc/aoti/canonical.h"

#if defined(_WIN32)
#define NEML2_EAGER_EXPORT
#else
#define NEML2_EAGER_EXPORT __attribute__((visibility("default")))
#endif

namespace neml2::eager
{
using TensorMap = neml2::aoti::TensorMap;

/// Make sure a CPython interpreter is running (thread-safe, idempotent).
///
/// If none is running, start one -- as the virtual environment's interpreter when VIRTUAL_ENV is
/// set, so its site-packages (and .pth files) are used -- with line-buffered stdout/stderr and
/// without installing signal handlers, then release the GIL for the life of the process. If the
/// host already runs Python, nothing changes. The interpreter is never finalized: torch cannot be
/// imported again after Py_Finalize.
NEML2_EAGER_EXPORT void ensure_interpreter();

/// True when ensure_interpreter() started the interpreter, false when it found one running (or
/// has not been called yet).
NEML2_EAGER_EXPORT bool started_interpreter() noexcept;

/// Call `module.function(inputs)` under the GIL and return its dict[str, Tensor] result.
///
/// Errors are normalized to the neml2::aoti taxonomy: the Python ConvergenceError (the one class
/// exported by neml2.aoti) becomes a recoverable neml2::aoti::ConvergenceError (carrying
/// converged_mask / unknowns when the Python error has them); any other Python exception or a
/// malformed result becomes neml2::aoti::FatalError("<op>: <Type>: <message>").
NEML2_EAGER_EXPORT TensorMap call(const std::string & op,
                                  const std::string & module,
                                  const std::string & function,
                                  const TensorMap & inputs);
} // namespace neml2::eager
