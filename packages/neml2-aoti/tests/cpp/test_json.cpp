// The metadata JSON reader (csrc/aoti/json.cpp over nlohmann_json, compiled into this test):
// values of valid documents, errors that name file:line:column and the value, and for every truncation and thousands of byte mutations of a metadata-like
// document either a value or a FatalError -- never a crash or an out-of-bounds read (nox -s
// sanitize runs this under AddressSanitizer).
#include <cstdint>
#include <string>

#include "check.h"
#include "json.h"
#include "neml2/csrc/aoti/Exception.h"

using namespace neml2::aoti;

namespace
{
const std::string document = R"({
  "format": 3, "torch": "2.13.0", "dtype": "float64",
  "inputs": [{"name": "strain", "base_shape": [6], "type": "SR2"}],
  "outputs": [{"name": "stress", "base_shape": [6]}],
  "solver": {"atol": 1e-10, "rtol": -1.5E-8, "miters": 20, "on": true, "off": false, "x": null},
  "text": "tab\t quote\" slash\/ \u00e9 \ud83d\ude00 end"
})";

/// Parse `text`: true for a value, false for a FatalError (anything else propagates: a failure).
bool
parses(const std::string & text)
{
  try
  {
    json::parse(text, "doc.json");
    return true;
  }
  catch (const FatalError &)
  {
    return false;
  }
}
} // namespace

TEST_CASE(values)
{
  const auto v = json::parse(document, "doc.json");
  EXPECT(v.at("format", "doc").as_int("format") == 3);
  EXPECT(v.at("dtype", "doc").as_string("dtype") == "float64");
  const auto & in = v.at("inputs", "doc").as_array("inputs");
  EXPECT(in.size() == 1 && in[0].at("base_shape", "in").as_array("shape")[0].as_int("6") == 6);
  const auto & solver = v.at("solver", "doc");
  EXPECT(solver.at("atol", "s").as_double("atol") == 1e-10);
  EXPECT(solver.at("rtol", "s").as_double("rtol") == -1.5e-8);
  EXPECT(solver.at("on", "s").as_bool("on") && !solver.at("off", "s").as_bool("off"));
  EXPECT(solver.at("x", "s").is_null());
  EXPECT(v.at("text", "doc").as_string("text") ==
         "tab\t quote\" slash/ \xc3\xa9 \xf0\x9f\x98\x80 end");
  EXPECT_THROWS(FatalError, v.at("missing", "doc"), "doc: missing key 'missing'");
  EXPECT_THROWS(FatalError, v.at("dtype", "doc").as_int("dtype"), "dtype: expected");
}

TEST_CASE(every_truncation_is_an_error)
{
  // a prefix that ends right after the closing brace is the whole document
  for (std::size_t n = 0; n + 1 < document.size(); ++n)
    EXPECT(!parses(document.substr(0, n)));
}

TEST_CASE(mutations_give_a_value_or_an_error)
{
  // deterministic byte flips, insertions of structural characters and deletions
  static const char raw[] = "{}[]\",:\\u0123456789eE+-.tfn \x00\xff";
  const std::string alphabet(raw, sizeof(raw) - 1); // with the NUL byte
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]
  {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (int trial = 0; trial < 5000; ++trial)
  {
    std::string text = document;
    for (int edits = 1 + static_cast<int>(next() % 4); edits > 0 && !text.empty(); --edits)
    {
      const std::size_t at = next() % text.size();
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3)
      {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1);
      }
    }
    parses(text);
  }
}

TEST_CASE(deep_nesting_is_an_error_not_a_stack_overflow)
{
  EXPECT_THROWS(FatalError, json::parse(std::string(100000, '['), "deep.json"), "deep.json:");
  EXPECT(parses(std::string(100, '[') + std::string(100, ']')));
}

TEST_CASE(errors_name_the_place_and_the_value)
{
  // the position of the offending byte as <source>:<line>:<column>, the reason without the
  // library's exception prefix
  try
  {
    json::parse("{\n  \"a\": tru\n}", "doc.json");
    EXPECT(false);
  }
  catch (const FatalError & e)
  {
    const std::string msg = e.what();
    EXPECT(msg.rfind("doc.json:2:", 0) == 0);
    EXPECT(msg.find(": invalid JSON: syntax error") != std::string::npos);
    EXPECT(msg.find("[json.exception") == std::string::npos);
  }
  EXPECT_THROWS(FatalError, json::parse("[1e999]", "big.json"), "big.json: invalid JSON:");
  const auto v = json::parse(R"({"n": 3.0, "x": 2.5, "u": 18446744073709551615, "s": "t"})", "d");
  EXPECT(v.at("n", "d").as_int("n") == 3);
  EXPECT_THROWS(FatalError, v.at("x", "d").as_int("d.x"), "d.x: expected an integer, got 2.5");
  EXPECT_THROWS(FatalError, v.at("u", "d").as_int("d.u"), "d.u: integer 18446744073709551615");
  EXPECT_THROWS(FatalError, v.at("s", "d").as_array("d.s"), "d.s: expected an array, got a string");
  EXPECT_THROWS(FatalError, v.at("s", "d").at("k", "d.s"), "d.s: expected an object, got a string");
  EXPECT(!v.find("missing") && !v.at("s", "d").find("k"));
  // members in document order; a view keeps its document alive
  const auto members = json::parse(R"({"z": 1, "a": 2, "m": 3})", "o").as_object("o");
  EXPECT(members.size() == 3 && members[0].first == "z" && members[2].first == "m");
  EXPECT(members[1].second.as_int("a") == 2);
}

TEST_CASE(bad_escapes_and_numbers)
{
  for (const char * bad : {R"("\x")", R"("\u12")", "01", "1.", "-", "1e", "tru",
                           "\"unterminated", "[1,]", "{\"a\" 1}", "{\"a\":1,}"})
    EXPECT(!parses(bad));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
