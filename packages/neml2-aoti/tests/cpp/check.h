// A minimal test harness: each case is a named function; `test_x <case>` runs one case (ctest
// registers every case separately), `test_x --list` prints the case names.
#pragma once

#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace check
{
inline std::map<std::string, std::function<void()>> &
cases()
{
  static std::map<std::string, std::function<void()>> registry;
  return registry;
}

/// Thrown by a case whose prerequisites are absent (e.g. no test artifacts): exit code 77,
/// which ctest reports as skipped (SKIP_RETURN_CODE).
struct Skip : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

struct Register
{
  Register(const char * name, std::function<void()> f) { cases().emplace(name, std::move(f)); }
};

inline void
fail(const char * file, int line, const std::string & what)
{
  std::ostringstream os;
  os << file << ":" << line << ": " << what;
  throw std::logic_error(os.str());
}

inline int
main(int argc, char ** argv)
{
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0)
  {
    for (const auto & [name, f] : cases())
      std::cout << name << "\n";
    return 0;
  }
  if (argc != 2 || !cases().count(argv[1]))
  {
    std::cerr << "usage: " << argv[0] << " <case>|--list\n";
    return 2;
  }
  try
  {
    cases().at(argv[1])();
  }
  catch (const Skip & e)
  {
    std::cout << "skipped " << argv[1] << ": " << e.what() << "\n";
    return 77;
  }
  catch (const std::exception & e)
  {
    std::cerr << "FAILED " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  std::cout << "passed " << argv[1] << "\n";
  return 0;
}
} // namespace check

#define CHECK_CAT2(a, b) a##b
#define CHECK_CAT(a, b) CHECK_CAT2(a, b)
#define TEST_CASE(name)                                                                            \
  static void CHECK_CAT(test_, name)();                                                            \
  static check::Register CHECK_CAT(reg_, name)(#name, &CHECK_CAT(test_, name));                    \
  static void CHECK_CAT(test_, name)()
#define EXPECT(cond)                                                                               \
  do                                                                                               \
  {                                                                                                \
    if (!(cond))                                                                                   \
      check::fail(__FILE__, __LINE__, "EXPECT(" #cond ") failed");                                 \
  } while (0)
// EXPECT_THROWS(Type, statement, substring): statement throws Type whose what() has substring.
#define EXPECT_THROWS(Type, stmt, substring)                                                       \
  do                                                                                               \
  {                                                                                                \
    bool caught_ = false;                                                                          \
    try                                                                                            \
    {                                                                                              \
      stmt;                                                                                        \
    }                                                                                              \
    catch (const Type & e_)                                                                        \
    {                                                                                              \
      caught_ = true;                                                                              \
      if (std::string(e_.what()).find(substring) == std::string::npos)                             \
        check::fail(__FILE__,                                                                      \
                    __LINE__,                                                                      \
                    std::string("message '") + e_.what() + "' lacks '" + (substring) + "'");       \
    }                                                                                              \
    if (!caught_)                                                                                  \
      check::fail(__FILE__, __LINE__, "expected " #Type " from " #stmt);                           \
  } while (0)
