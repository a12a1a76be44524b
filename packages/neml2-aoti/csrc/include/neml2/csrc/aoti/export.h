// Symbol visibility for libneml2.so: the library is built with hidden visibility and only
// declarations marked NEML2_AOTI_EXPORT are part of its ABI.
#pragma once

#if defined(_WIN32)
#if defined(NEML2_AOTI_BUILDING)
#define NEML2_AOTI_EXPORT __declspec(dllexport)
#else
#define NEML2_AOTI_EXPORT __declspec(dllimport)
#endif
#else
#define NEML2_AOTI_EXPORT __attribute__((visibility("default")))
#endif
