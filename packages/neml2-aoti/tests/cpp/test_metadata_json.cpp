// metadata.json through Model (csrc/aoti/metadata.cpp, nlohmann_json underneath): values of the
// document reach the model; a syntax error names <file>:<line>:<column>; a value of the wrong type
// or a missing key names the file and the value's JSON pointer; nesting beyond 512 is an error,
// not a stack overflow; and every truncation and a thousand byte mutations of a real metadata.json
// give a model or a FatalError -- never a crash, an out-of-bounds read (nox -s sanitize runs this
// under AddressSanitizer) or another exception type.
#include <cstdint>
#include <filesystem>
#include <string>

#include "check.h"
#include "neml2/csrc/aoti/Model.h"
#include "reference.h"

using namespace neml2::aoti;

namespace
{
using ArtifactCopy = reference::ArtifactCopy;

/// Load the artifact: true for a model, false for a FatalError (anything else propagates and
/// fails the test case).
bool
loads(const ArtifactCopy & a)
{
  try
  {
    Model m(a.root);
    return true;
  }
  catch (const FatalError &)
  {
    return false;
  }
}

/// The message of the FatalError loading `a` throws ("" when it loads).
std::string
load_error(const ArtifactCopy & a)
{
  try
  {
    Model m(a.root);
  }
  catch (const FatalError & e)
  {
    return e.what();
  }
  return "";
}

bool
contains(const std::string & text, const std::string & part)
{
  return text.find(part) != std::string::npos;
}
} // namespace

TEST_CASE(values_reach_the_model)
{
  ArtifactCopy a("elasticity");
  // member order is kept: inputs and outputs in the order metadata.json lists them
  Model m(a.root);
  EXPECT(m.input_names() == std::vector<std::string>{"strain"});
  EXPECT(m.output_names() == std::vector<std::string>{"stress"});
  // escapes decode (\u00e9 is é in UTF-8)
  a.replace("\"var_type\": \"", "\"var_type\": \"\\u00e9");
  EXPECT(Model(a.root).input_types()[0].rfind("\xc3\xa9", 0) == 0);
}

TEST_CASE(syntax_errors_name_file_line_column)
{
  ArtifactCopy a("elasticity");
  a.write_metadata("{\n  \"format\": tru\n}");
  const auto msg = load_error(a);
  EXPECT(contains(msg, "metadata.json:2:"));
  EXPECT(contains(msg, ": invalid JSON: syntax error"));
  EXPECT(!contains(msg, "[json.exception"));
  a.write_metadata("[1e999]");
  EXPECT(contains(load_error(a), "metadata.json: invalid JSON:"));
  for (const char * bad : {R"({"a": "\x"})",
                           R"({"a": "\u12"})",
                           "01",
                           "1.",
                           "-",
                           "1e",
                           "[1,]",
                           "{\"a\" 1}",
                           "{\"a\":1,}",
                           "\"unterminated",
                           ""})
  {
    a.write_metadata(bad);
    EXPECT(contains(load_error(a), "invalid JSON"));
  }
}

TEST_CASE(deep_nesting_is_an_error_not_a_stack_overflow)
{
  ArtifactCopy a("elasticity");
  a.write_metadata(std::string(100000, '['));
  EXPECT(contains(load_error(a), "nested deeper than 512"));
}

TEST_CASE(wrong_types_and_missing_keys_name_the_json_pointer)
{
  {
    ArtifactCopy a("elasticity");
    a.replace("\"schema_version\": 3", "\"schema_version\": \"3\"");
    const auto msg = load_error(a);
    EXPECT(contains(msg, "metadata.json: /schema_version: type must be number, but is string"));
    EXPECT(!contains(msg, "[json.exception"));
  }
  {
    ArtifactCopy a("elasticity");
    a.replace("\"schema_version\": 3", "\"schema_version\": 2.5");
    EXPECT(contains(load_error(a), "/schema_version: type must be an integer, but is number"));
  }
  {
    ArtifactCopy a("elasticity");
    a.replace("\"schema_version\": 3", "\"schema_version\": 18446744073709551615");
    EXPECT(
        contains(load_error(a), "/schema_version: integer 18446744073709551615 is out of range"));
  }
  {
    ArtifactCopy a("elasticity");
    a.replace("\"torch_version\"", "\"torch_release\"");
    EXPECT(contains(load_error(a), "metadata.json: key 'torch_version' not found"));
  }
  {
    ArtifactCopy a("elasticity");
    a.replace("\"base_shape\": [", "\"base_shape\": [\"six\", ");
    EXPECT(contains(load_error(a), "/inputs/0/base_shape/0: type must be number, but is string"));
  }
  {
    ArtifactCopy a("elasticity");
    a.replace("\"kind\": \"forward\"", "\"kind\": 1");
    EXPECT(contains(load_error(a), "/segments/0/kind: type must be string, but is number"));
  }
}

TEST_CASE(every_truncation_is_an_error)
{
  ArtifactCopy a("elasticity");
  const auto text = a.read_metadata();
  // a prefix that ends right after the closing brace is the whole document
  const auto end = text.rfind('}');
  for (std::size_t n = 0; n < end; ++n)
  {
    a.write_metadata(text.substr(0, n));
    EXPECT(!loads(a));
  }
}

TEST_CASE(mutations_give_a_model_or_an_error)
{
  ArtifactCopy a("elasticity");
  const auto document = a.read_metadata();
  // deterministic byte flips, insertions of structural characters and deletions
  static const char raw[] = "{}[]\",:\\u0123456789eE+-.tfn \x00\xff";
  const std::string alphabet(raw, sizeof(raw) - 1); // with the NUL byte
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]
  {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  int loaded = 0;
  for (int trial = 0; trial < 1000; ++trial)
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
    a.write_metadata(text);
    loaded += loads(a);
  }
  // some edits are harmless (inside whitespace, a digit of a tolerance), most are errors
  EXPECT(loaded > 0 && loaded < 1000);
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
