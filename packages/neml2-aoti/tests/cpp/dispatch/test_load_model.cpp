// The minimal HIT stub reader behind load_model: what it accepts and its file:line errors.
#include <filesystem>
#include <fstream>
#include <string>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/dispatchers/load_model.h"

using namespace neml2::aoti;
namespace fs = std::filesystem;

namespace
{
fs::path
write_stub(const std::string & name, const std::string & text)
{
  const auto dir = fs::temp_directory_path() / "neml2_dispatch_stub_test";
  fs::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}
} // namespace

TEST_CASE(relative_quoted_path)
{
  const auto stub = write_stub("a.i",
                               "# stub\n[Tensors]\n  [T]\n    values = '1 2\n 3'\n  []\n[]\n"
                               "[Models]\n  [model]\n    type = AOTIModel\n"
                               "    artifact_path = 'model' # the root\n  []\n[]\n"
                               "[Settings]\n  dynamic_batch = true\n[]\n");
  EXPECT(stub_artifact_path(stub, "model") == (fs::absolute(stub).parent_path() / "model"));
}

TEST_CASE(bare_absolute_path_and_compact_block)
{
  const auto stub =
      write_stub("b.i", "[Models]\n  [m] type=AOTIModel artifact_path=/opt/art/m [../]\n[]\n");
  EXPECT(stub_artifact_path(stub, "m") == fs::path("/opt/art/m"));
  const auto nested = write_stub("c.i",
                                 "[Models/m]\n  type = AOTIModel\n"
                                 "  artifact_path = \"x/../y\"\n[]\n");
  EXPECT(stub_artifact_path(nested, "m") == fs::absolute(nested).parent_path() / "y");
}

TEST_CASE(errors_name_file_and_line)
{
  const auto wrong_type = write_stub(
      "d.i",
      "[Models]\n  [m]\n    type = LinearIsotropicElasticity\n    artifact_path = x\n  []\n[]\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(wrong_type, "m"), "d.i:3: [Models]/[m] has type");
  const auto no_path = write_stub("e.i", "[Models]\n  [m]\n    type = AOTIModel\n  []\n[]\n");
  EXPECT_THROWS(
      FatalError, stub_artifact_path(no_path, "m"), "e.i:2: [Models]/[m] has no 'artifact_path'");
  EXPECT_THROWS(FatalError, stub_artifact_path(no_path, "other"), "no block [Models]/[other]");
  const auto empty = write_stub(
      "f.i", "[Models]\n  [m]\n    type = AOTIModel\n    artifact_path = ''\n  []\n[]\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(empty, "m"), "f.i:4:");
  const auto open = write_stub("g.i", "[Models]\n  [m]\n    type = AOTIModel\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(open, "m"), "is not closed");
  const auto quote = write_stub("h.i", "[Models]\n  [m]\n    type = 'AOTIModel\n  []\n[]\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(quote, "m"), "h.i:3: unterminated");
  const auto twice =
      write_stub("k.i", "[Models]\n  [m]\n    type = AOTIModel\n    type = AOTIModel\n  []\n[]\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(twice, "m"), "k.i:4: 'type' is set twice");
  const auto stray = write_stub("l.i", "[]\n");
  EXPECT_THROWS(FatalError, stub_artifact_path(stray, "m"), "l.i:1:");
  EXPECT_THROWS(FatalError, stub_artifact_path("/nonexistent/stub.i", "m"), "cannot read the stub");
  EXPECT_THROWS(FatalError, load_model(no_path, "m", nullptr, c10::kHalf), "float64 or float32");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
