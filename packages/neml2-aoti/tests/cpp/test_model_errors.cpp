// Bad input to neml2::aoti::Model: each is a FatalError (not recoverable) whose message names the
// thing at fault. Artifacts from NEML2_TEST_ARTIFACTS; broken artifacts are edited copies.
#include <filesystem>
#include <fstream>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Model.h"
#include "reference.h"

using namespace neml2::aoti;
namespace fs = std::filesystem;

namespace
{
TensorMap
strain_input(int64_t B = 3)
{
  return {{"strain", 1e-3 * at::rand({B, 6}, at::kDouble)}};
}

using ArtifactCopy = reference::ArtifactCopy;

#define EXPECT_FATAL(stmt, substring)                                                              \
  do                                                                                               \
  {                                                                                                \
    EXPECT_THROWS(FatalError, stmt, substring);                                                    \
    try                                                                                            \
    {                                                                                              \
      stmt;                                                                                        \
    }                                                                                              \
    catch (const Exception & e_)                                                                   \
    {                                                                                              \
      EXPECT(!e_.recoverable());                                                                   \
    }                                                                                              \
  } while (0)
} // namespace

TEST_CASE(missing_input)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.forward({}), "missing input 'strain'");
}

TEST_CASE(extra_input)
{
  Model m(reference::artifact("elasticity"));
  auto in = strain_input();
  in["temperature"] = at::zeros({3}, at::kDouble);
  EXPECT_FATAL(m.forward(in), "unexpected input 'temperature'");
}

TEST_CASE(wrong_base_shape)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.forward({{"strain", at::zeros({3, 3, 3}, at::kDouble)}}), "input 'strain'");
  EXPECT_FATAL(m.forward({{"strain", at::zeros({3, 3, 3}, at::kDouble)}}), "[6]");
}

TEST_CASE(wrong_dtype)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.forward({{"strain", at::zeros({3, 6}, at::kFloat)}}), "'strain' has dtype Float");
}

TEST_CASE(wrong_device)
{
  Model m(reference::artifact("elasticity"));
  const auto meta = at::empty({3, 6}, at::TensorOptions().dtype(at::kDouble).device(at::kMeta));
  EXPECT_FATAL(m.forward({{"strain", meta}}), "'strain' is on device meta");
}

TEST_CASE(batch_mismatch)
{
  Model m(reference::artifact("scalar_implicit"));
  TensorMap in;
  for (const auto & n : m.input_names())
    in[n] = at::zeros({3}, at::kDouble);
  in["t"] = at::zeros({4}, at::kDouble);
  EXPECT_FATAL(m.forward(in), "input 't': batch shape [4]");
}

TEST_CASE(missing_artifact_folder)
{
  EXPECT_FATAL(Model("/nonexistent/neml2/artifact"), "/nonexistent/neml2/artifact");
}

TEST_CASE(missing_graph_file)
{
  ArtifactCopy a("elasticity");
  fs::remove(a.root / "cpu" / "float64" / "model_jvp.pt2");
  EXPECT_FATAL(Model(a.root), "model_jvp.pt2");
}

TEST_CASE(missing_metadata)
{
  ArtifactCopy a("elasticity");
  fs::remove(a.root / "metadata.json");
  EXPECT_FATAL(Model(a.root), "metadata.json");
}

TEST_CASE(corrupted_metadata)
{
  ArtifactCopy a("elasticity");
  a.write_metadata("{\n \"format\": \"neml2-aoti\",\n \"schema_version\": 3,\n \"inputs\": [\n");
  // the file, then line:column of the failure
  EXPECT_FATAL(Model(a.root), "metadata.json:5:1: invalid JSON");
}

TEST_CASE(schema_version_mismatch)
{
  ArtifactCopy a("elasticity");
  a.replace("\"schema_version\": 3", "\"schema_version\": 7");
  EXPECT_FATAL(Model(a.root),
               "schema version 7, this neml2 reads 2 to 3: recompile with neml2-compile");
}

TEST_CASE(torch_version_mismatch)
{
  ArtifactCopy a("elasticity");
  a.replace("\"torch_version\": \"", "\"torch_version\": \"1.");
  EXPECT_FATAL(Model(a.root), "built with torch 1.");
  EXPECT_FATAL(Model(a.root), "recompile with neml2-compile under this torch");
}

TEST_CASE(missing_leaf)
{
  ArtifactCopy a("elasticity");
  fs::remove_all(a.root / "cpu" / "float32");
  auto text = a.read_metadata();
  const auto begin = text.find("\"leaves\"");
  auto end = text.find('[', begin); // the ']' closing the leaves list (its entries hold lists)
  for (int depth = 0; (depth += text[end] == '[' ? 1 : text[end] == ']' ? -1 : 0) > 0;)
    ++end;
  a.write_metadata(text.replace(begin,
                                end + 1 - begin,
                                "\"leaves\": [{\"device\": \"cpu\", \"dtype\": \"float64\", "
                                "\"path\": \"cpu/float64\"}]"));
  EXPECT_FATAL(Model(a.root, c10::kCPU, c10::kFloat),
               "no cpu/float32 leaf (available: cpu/float64); recompile with neml2-compile ... "
               "--device cpu --dtype float32");
}

TEST_CASE(unknown_parameter)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.set_parameter("model.G", at::ones({}, at::kDouble)),
               "'model.G' is not a promoted parameter (promoted: model.E)");
  EXPECT_FATAL(m.forward(strain_input(), {{"model.nu", at::ones({}, at::kDouble)}}),
               "unknown parameter 'model.nu'");
}

TEST_CASE(bad_parameter_value)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.set_parameter("model.E", at::ones({}, at::kFloat)), "set_parameter('model.E')");
  m.named_parameters()["model.E"] = at::ones({4}, at::kDouble); // 4 points, the call has 3
  EXPECT_FATAL(m.forward(strain_input()), "parameter 'model.E': batch shape [4]");
}

TEST_CASE(no_compiled_derivatives)
{
  ArtifactCopy a("elasticity");
  a.replace("\"derivatives\": [", "\"derivatives\": [], \"_unused\": [");
  Model m(a.root);
  EXPECT_FATAL(m.jacobian(strain_input()), "recompile with neml2-compile -d");
}

TEST_CASE(bad_tangent)
{
  Model m(reference::artifact("elasticity"));
  EXPECT_FATAL(m.jvp(strain_input(), {{"stress", at::zeros({3, 6}, at::kDouble)}}),
               "tangent 'stress' is not an input");
}

TEST_CASE(edited_base_shape)
{
  // strain [6] -> [5] after the compile: the graphs were traced for 6 numbers per row
  ArtifactCopy a("elasticity");
  a.replace("\"base_shape\": [\n    6\n   ]", "\"base_shape\": [\n    5\n   ]");
  EXPECT_FATAL(Model(a.root),
               "input 0 is float64 cpu [B, 6], metadata.json implies float64 cpu [B, 5] "
               "(variable 'strain')");
}

TEST_CASE(changed_graph_file)
{
  ArtifactCopy a("elasticity");
  std::ofstream(a.root / "cpu" / "float64" / "model.pt2", std::ios::binary | std::ios::app) << '\0';
  EXPECT_FATAL(Model(a.root), "model.pt2' has sha1 ");
  EXPECT_FATAL(Model(a.root), ": the file was changed or comes from another compile");
}

TEST_CASE(graph_of_the_other_dtype)
{
  ArtifactCopy a("elasticity");
  const auto f32 = a.root / "cpu" / "float32" / "model.pt2";
  if (!fs::exists(f32))
    return; // an artifact compiled for float64 only
  const auto f64 = a.root / "cpu" / "float64" / "model.pt2";
  fs::copy_file(f32, f64, fs::copy_options::overwrite_existing);
  EXPECT_FATAL(Model(a.root), "model.pt2' has sha1 ");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
