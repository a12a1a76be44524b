// NEML2 v3 compatibility: the export-macro header a v3 host may include by this path. The macros
// map onto libneml2_eager.so's own visibility macro (NEML2_EAGER_EXPORT, neml2/csrc/eager/python.h).
//
//   EAGER_EXPORT                public symbol (NEML2_EAGER_EXPORT)
//   EAGER_NO_EXPORT             hidden symbol
//   EAGER_DEPRECATED            [[deprecated]]-style attribute
//   EAGER_DEPRECATED_EXPORT     both, and EAGER_DEPRECATED_NO_EXPORT likewise
//
// Each macro is defined only when not already defined, so a host may predefine any of them.
#pragma once

#include "neml2/csrc/eager/python.h"

#ifndef EAGER_EXPORT
#define EAGER_EXPORT NEML2_EAGER_EXPORT
#endif

#ifndef EAGER_NO_EXPORT
#if defined(_WIN32)
#define EAGER_NO_EXPORT
#else
#define EAGER_NO_EXPORT __attribute__((visibility("hidden")))
#endif
#endif

#ifndef EAGER_DEPRECATED
#if defined(_MSC_VER)
#define EAGER_DEPRECATED __declspec(deprecated)
#else
#define EAGER_DEPRECATED __attribute__((__deprecated__))
#endif
#endif

#ifndef EAGER_DEPRECATED_EXPORT
#define EAGER_DEPRECATED_EXPORT EAGER_EXPORT EAGER_DEPRECATED
#endif

#ifndef EAGER_DEPRECATED_NO_EXPORT
#define EAGER_DEPRECATED_NO_EXPORT EAGER_NO_EXPORT EAGER_DEPRECATED
#endif
