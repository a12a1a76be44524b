// neml2/csrc/aoti/log.h (NEML2 v3's logging API): level resolution (NEML2_LOGS > programmatic
// defaults > warning), parsing, formatting, sinks, and the compiled Newton solver reporting on the
// newton channel through the same store.
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "neml2/csrc/aoti/log.h"

using namespace neml2::aoti;

namespace
{
/// Captures every line the store emits while alive; restores the defaults afterwards.
struct Capture
{
  std::vector<std::pair<log::Level, std::string>> lines;
  Capture()
  {
    log::set_sink([this](log::Level level, const std::string & line)
                  { lines.emplace_back(level, line); });
  }
  ~Capture()
  {
    log::reset_sink();
    log::reset_defaults();
    unsetenv("NEML2_LOGS");
    log::apply_env();
  }
};
} // namespace

TEST_CASE(names_and_parsing)
{
  EXPECT(std::string(log::channel_name(log::Channel::Substep)) == "substep");
  EXPECT(std::string(log::level_name(log::Level::Warning)) == "warning");
  log::Channel c = log::Channel::Newton;
  EXPECT(log::parse_channel(" Driver ", c) && c == log::Channel::Driver);
  EXPECT(!log::parse_channel("all", c) && c == log::Channel::Driver);
  log::Level l = log::Level::Silent;
  EXPECT(log::parse_level("DEBUG", l) && l == log::Level::Debug);
  EXPECT(log::parse_level("warn", l) && l == log::Level::Warning);
  EXPECT(log::parse_level("off", l) && l == log::Level::Silent);
  EXPECT(log::parse_level("2", l) && l == log::Level::Info);
  EXPECT(!log::parse_level("loud", l) && l == log::Level::Info);
  EXPECT(log::format(log::Channel::Newton, log::Level::Info, "hi") == "[neml2:newton ][info] hi");
  EXPECT(log::format(log::Channel::Substep, log::Level::Debug, "x") == "[neml2:substep][dbg ] x");
  EXPECT(log::format(log::Channel::Model, log::Level::Warning, "w") == "[neml2:model  ][warn] w");
}

TEST_CASE(levels_resolve_env_then_defaults)
{
  Capture cap;
  unsetenv("NEML2_LOGS");
  log::apply_env();
  EXPECT(log::effective_level(log::Channel::Linear) == log::Level::Warning);
  EXPECT(log::enabled(log::Channel::Linear, log::Level::Warning));
  EXPECT(!log::enabled(log::Channel::Linear, log::Level::Info));
  log::set_default_level(log::Level::Info);
  log::set_default_level(log::Channel::Model, log::Level::Debug);
  EXPECT(log::effective_level(log::Channel::Linear) == log::Level::Info);
  EXPECT(log::effective_level(log::Channel::Model) == log::Level::Debug);
  // the environment overrides the programmatic defaults; a channel entry beats `all`; a changed
  // NEML2_LOGS is picked up without apply_env; malformed entries are skipped
  setenv("NEML2_LOGS", "all=silent, model=warning,bogus=debug,linear=loud,noequals", 1);
  EXPECT(log::effective_level(log::Channel::Model) == log::Level::Warning);
  EXPECT(log::effective_level(log::Channel::Linear) == log::Level::Silent);
  EXPECT(!log::enabled(log::Channel::Linear, log::Level::Warning));
  unsetenv("NEML2_LOGS");
  EXPECT(log::effective_level(log::Channel::Linear) == log::Level::Info);
  log::reset_defaults();
  EXPECT(log::effective_level(log::Channel::Model) == log::Level::Warning);
  EXPECT(!log::enabled(log::Channel::Model, log::Level::Silent));
}

TEST_CASE(emit_routes_through_the_sink)
{
  Capture cap;
  unsetenv("NEML2_LOGS");
  log::apply_env();
  log::emit(log::Channel::Driver, log::Level::Info, "hidden");
  log::emit(log::Channel::Driver, log::Level::Warning, "two\nlines");
  log::set_default_level(log::Channel::Driver, log::Level::Info);
  log::begin_solve(log::Channel::Driver, "step 1");
  log::end_solve(log::Channel::Driver, "step 1");
  log::emit(log::Channel::Driver, log::Level::Silent, "never");
  EXPECT(cap.lines.size() == 4);
  EXPECT(cap.lines[0].first == log::Level::Warning &&
         cap.lines[0].second == "[neml2:driver ][warn] two");
  EXPECT(cap.lines[1].second == "[neml2:driver ][warn] lines");
  EXPECT(cap.lines[2].first == log::Level::Info &&
         cap.lines[2].second == "[neml2:driver ][info] ---- begin step 1 ----");
  EXPECT(cap.lines[3].second == "[neml2:driver ][info] ---- end step 1 ----");
  // an empty sink restores the default one (stdout / stderr): nothing more is captured
  log::set_sink(log::Sink());
  log::emit(log::Channel::Driver, log::Level::Info, "to stdout");
  EXPECT(cap.lines.size() == 4);
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
