// The verbosity store behind neml2/csrc/aoti/log.h.
#include "neml2/csrc/aoti/log.h"

#include <array>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <utility>

namespace neml2::aoti::log
{
namespace
{
constexpr std::size_t n_channels = 6;
constexpr Level builtin = Level::Warning;

using Levels = std::array<std::optional<Level>, n_channels>;

struct Store
{
  std::mutex mutex;
  /// NEML2_LOGS: per channel and `all`; `env_text` is the value they were parsed from.
  Levels env{};
  std::optional<Level> env_all;
  std::optional<std::string> env_text;
  bool env_read = false;
  /// set_default_level: per channel and for every channel.
  Levels api{};
  std::optional<Level> api_all;
  Sink sink;
};

Store &
store()
{
  static Store s; // constructed on first use, never destroyed before static loggers run
  return s;
}

std::string
trimmed_lower(const std::string & s)
{
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    --b;
  std::string out = s.substr(a, b - a);
  for (auto & c : out)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Parse NEML2_LOGS into the env layer (caller holds the lock).
void
parse_env(Store & s, const char * text)
{
  s.env = Levels{};
  s.env_all.reset();
  s.env_text = text ? std::optional<std::string>(text) : std::nullopt;
  s.env_read = true;
  if (!text)
    return;
  const std::string spec(text);
  std::size_t start = 0;
  while (start <= spec.size())
  {
    const auto end = std::min(spec.find(',', start), spec.size());
    const auto entry = spec.substr(start, end - start);
    start = end + 1;
    const auto eq = entry.find('=');
    if (eq == std::string::npos)
      continue;
    Level level = Level::Silent;
    if (!parse_level(entry.substr(eq + 1), level))
      continue;
    const auto key = trimmed_lower(entry.substr(0, eq));
    Channel channel = Channel::Newton;
    if (key == "all")
      s.env_all = level;
    else if (parse_channel(key, channel))
      s.env[std::size_t(channel)] = level;
  }
}

/// Re-parse NEML2_LOGS when it was never read or its value changed (caller holds the lock).
void
refresh_env(Store & s)
{
  const char * text = std::getenv("NEML2_LOGS");
  if (s.env_read && (text ? s.env_text && *s.env_text == text : !s.env_text))
    return;
  parse_env(s, text);
}

Level
resolve(const Store & s, Channel channel)
{
  const auto i = std::size_t(channel);
  for (const auto * layer : {&s.env[i], &s.env_all, &s.api[i], &s.api_all})
    if (layer->has_value())
      return **layer;
  return builtin;
}

std::size_t
index_of(Channel channel)
{
  const auto i = std::size_t(channel);
  return i < n_channels ? i : std::size_t(Channel::Model);
}

const char *
tag(Level level)
{
  switch (level)
  {
    case Level::Warning:
      return "warn";
    case Level::Info:
      return "info";
    case Level::Debug:
      return "dbg ";
    default:
      return "    ";
  }
}

void
default_sink(Level level, const std::string & line)
{
  auto & os = level == Level::Info ? std::cout : std::cerr;
  os << line << '\n';
  os.flush();
}
} // namespace

const char *
channel_name(Channel channel)
{
  static const char * const names[n_channels] = {
      "newton", "linear", "substep", "model", "tensor", "driver"};
  const auto i = std::size_t(channel);
  return i < n_channels ? names[i] : "unknown";
}

const char *
level_name(Level level)
{
  switch (level)
  {
    case Level::Silent:
      return "silent";
    case Level::Warning:
      return "warning";
    case Level::Info:
      return "info";
    case Level::Debug:
      return "debug";
  }
  return "unknown";
}

bool
parse_channel(const std::string & s, Channel & out)
{
  const auto key = trimmed_lower(s);
  for (std::size_t i = 0; i < n_channels; ++i)
    if (key == channel_name(Channel(i)))
    {
      out = Channel(i);
      return true;
    }
  return false;
}

bool
parse_level(const std::string & s, Level & out)
{
  static const std::pair<const char *, Level> aliases[] = {{"silent", Level::Silent},
                                                           {"off", Level::Silent},
                                                           {"none", Level::Silent},
                                                           {"0", Level::Silent},
                                                           {"warning", Level::Warning},
                                                           {"warn", Level::Warning},
                                                           {"1", Level::Warning},
                                                           {"info", Level::Info},
                                                           {"2", Level::Info},
                                                           {"debug", Level::Debug},
                                                           {"3", Level::Debug}};
  const auto key = trimmed_lower(s);
  for (const auto & [name, level] : aliases)
    if (key == name)
    {
      out = level;
      return true;
    }
  return false;
}

Level
effective_level(Channel channel)
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  refresh_env(s);
  return resolve(s, Channel(index_of(channel)));
}

bool
enabled(Channel channel, Level level)
{
  return level != Level::Silent && int(effective_level(channel)) >= int(level);
}

std::string
format(Channel channel, Level level, const std::string & message)
{
  std::string name = channel_name(channel);
  if (name.size() < 7)
    name.resize(7, ' ');
  return "[neml2:" + name + "][" + tag(level) + "] " + message;
}

void
emit(Channel channel, Level level, const std::string & message)
{
  if (!enabled(channel, level))
    return;
  Sink sink;
  {
    auto & s = store();
    std::lock_guard<std::mutex> lock(s.mutex);
    sink = s.sink;
  }
  std::size_t start = 0;
  while (true)
  {
    const auto end = message.find('\n', start);
    const auto line = format(channel, level, message.substr(start, end - start));
    if (sink)
      sink(level, line);
    else
      default_sink(level, line);
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
}

void
begin_solve(Channel channel, const std::string & label)
{
  emit(channel, Level::Info, "---- begin " + label + " ----");
}

void
end_solve(Channel channel, const std::string & label)
{
  emit(channel, Level::Info, "---- end " + label + " ----");
}

void
set_default_level(Channel channel, Level level)
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.api[index_of(channel)] = level;
}

void
set_default_level(Level level)
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.api_all = level;
}

void
reset_defaults()
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.api = Levels{};
  s.api_all.reset();
}

void
set_sink(Sink sink)
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sink = std::move(sink);
}

void
reset_sink()
{
  set_sink(Sink());
}

void
apply_env()
{
  auto & s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  parse_env(s, std::getenv("NEML2_LOGS"));
}
} // namespace neml2::aoti::log
