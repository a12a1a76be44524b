// neml2::aoti::log: the channel/level verbosity store of libneml2.so (NEML2 v3 header path and
// API). It follows the grammar of Python's neml2.log:
//
//   NEML2_LOGS="newton=info,substep=debug,all=warning"   (channels: newton, linear, substep,
//   model, tensor, driver, or all; levels: silent|off|none|0, warning|warn|1, info|2, debug|3)
//
// A channel's effective level is the first of: its NEML2_LOGS entry, the NEML2_LOGS `all` entry,
// its set_default_level value, the set_default_level(Level) value, and the built-in Warning.
// NEML2_LOGS is read on first use and again whenever its value has changed (apply_env forces it).
// Lines read `[neml2:<channel padded to 7>][<warn|info|dbg >] message`; the default sink prints
// Info to stdout and Warning/Debug to stderr (one flushed line each). The compiled Newton solver
// (channel newton) reports through this store. Every function is thread-safe; a sink may be
// called from any thread that logs and may itself log.
#pragma once

#include <functional>
#include <string>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti::log
{
/// Verbosity, least to most verbose: a message at level L shows when the effective level >= L.
enum class Level
{
  Silent = 0,
  Warning = 1,
  Info = 2,
  Debug = 3,
};

/// The diagnostic channels (the same set as Python's neml2.log.CHANNELS).
enum class Channel
{
  Newton = 0,
  Linear = 1,
  Substep = 2,
  Model = 3,
  Tensor = 4,
  Driver = 5,
};

/// Receives the level and the formatted line (without a trailing newline).
using Sink = std::function<void(Level, const std::string &)>;

/// Whether a message of `level` on `channel` would be emitted.
NEML2_AOTI_EXPORT bool enabled(Channel channel, Level level);
/// The channel's effective level (environment, then programmatic defaults, then Warning).
NEML2_AOTI_EXPORT Level effective_level(Channel channel);
/// Emit every line of `message` on `channel` when `level` is enabled (Silent emits nothing).
NEML2_AOTI_EXPORT void emit(Channel channel, Level level, const std::string & message);
/// The line emit would write for a one-line message, without checking the level.
NEML2_AOTI_EXPORT std::string format(Channel channel, Level level, const std::string & message);
/// Info lines "---- begin <label> ----" / "---- end <label> ----" bracketing a solve.
NEML2_AOTI_EXPORT void begin_solve(Channel channel, const std::string & label);
NEML2_AOTI_EXPORT void end_solve(Channel channel, const std::string & label);

/// Programmatic default of one channel / of every channel (NEML2_LOGS still overrides them).
NEML2_AOTI_EXPORT void set_default_level(Channel channel, Level level);
NEML2_AOTI_EXPORT void set_default_level(Level level);
/// Forget every set_default_level choice.
NEML2_AOTI_EXPORT void reset_defaults();

/// Route every emitted line to `sink` (an empty sink restores the default one).
NEML2_AOTI_EXPORT void set_sink(Sink sink);
NEML2_AOTI_EXPORT void reset_sink();

/// Re-read NEML2_LOGS now. Malformed entries (no '=', unknown channel or level) are ignored.
NEML2_AOTI_EXPORT void apply_env();

/// Lowercase names: "newton", ..., "driver" and "silent", "warning", "info", "debug".
NEML2_AOTI_EXPORT const char * channel_name(Channel channel);
NEML2_AOTI_EXPORT const char * level_name(Level level);
/// Case-insensitive parsing (surrounding blanks ignored; level aliases as in NEML2_LOGS); false
/// and `out` untouched for an unknown name. "all" is not a channel.
NEML2_AOTI_EXPORT bool parse_channel(const std::string & s, Channel & out);
NEML2_AOTI_EXPORT bool parse_level(const std::string & s, Level & out);
} // namespace neml2::aoti::log
