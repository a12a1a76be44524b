// NEML2 v3 compatibility: the export-macro header a v3 host may include by this path. The macros
// map onto libneml2.so's own visibility macro (neml2/csrc/aoti/export.h), so a type or function
// a host tags AOTI_EXPORT is exported exactly like the library's own API.
//
//   AOTI_EXPORT                 public symbol (NEML2_AOTI_EXPORT)
//   AOTI_NO_EXPORT              hidden symbol
//   AOTI_DEPRECATED             [[deprecated]]-style attribute
//   AOTI_DEPRECATED_EXPORT      both, and AOTI_DEPRECATED_NO_EXPORT likewise
//
// Each macro is defined only when not already defined, so a host may predefine any of them.
#pragma once

#include "neml2/csrc/aoti/export.h"

#ifndef AOTI_EXPORT
#define AOTI_EXPORT NEML2_AOTI_EXPORT
#endif

#ifndef AOTI_NO_EXPORT
#if defined(_WIN32)
#define AOTI_NO_EXPORT
#else
#define AOTI_NO_EXPORT __attribute__((visibility("hidden")))
#endif
#endif

#ifndef AOTI_DEPRECATED
#if defined(_MSC_VER)
#define AOTI_DEPRECATED __declspec(deprecated)
#else
#define AOTI_DEPRECATED __attribute__((__deprecated__))
#endif
#endif

#ifndef AOTI_DEPRECATED_EXPORT
#define AOTI_DEPRECATED_EXPORT AOTI_EXPORT AOTI_DEPRECATED
#endif

#ifndef AOTI_DEPRECATED_NO_EXPORT
#define AOTI_DEPRECATED_NO_EXPORT AOTI_NO_EXPORT AOTI_DEPRECATED
#endif
