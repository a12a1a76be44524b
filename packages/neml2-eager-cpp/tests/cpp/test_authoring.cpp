// The NEML2 v2-style authoring API (neml2/neml2.h) over the cpp-eager route: load_model,
// Model::value, printing, default dtype, Scalar::full, and the same errors as neml2::eager::Model.
// Tracing is off here (the default): nothing is traced.
#include <Python.h>

#include <memory>
#include <sstream>
#include <type_traits>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/neml2.h"
#include "neml2/tensors/Scalar.h"
#include "neml2/tensors/jit.h"

using namespace neml2;

namespace
{
const std::string three_rates = NEML2_EAGER_TEST_INPUTS "/../tutorial/input.i";

ValueMap
three_rates_inputs(const TensorOptions & options = default_tensor_options())
{
  return {{"a", Scalar::full(1.0, options)},
          {"b", Scalar::full(2.0, options)},
          {"c", Scalar::full(3.0, options)},
          {"t", Scalar::full(0.1, options)},
          {"a~1", Scalar::full(0.5, options)},
          {"b~1", Scalar::full(1.0, options)},
          {"c~1", Scalar::full(2.5, options)},
          {"t~1", Scalar::full(0.0, options)}};
}
} // namespace

TEST_CASE(authoring_value)
{
  static_assert(std::is_same_v<decltype(load_model(three_rates, "eq")), std::shared_ptr<Model>>);
  set_default_dtype(kFloat64);
  EXPECT(get_default_dtype() == kFloat64);
  auto model = load_model(three_rates, "eq");
  EXPECT(model->name() == "eq");
  EXPECT(model->eager().dtype() == kFloat64);
  const auto out = model->value(three_rates_inputs());
  EXPECT(out.size() == 3);
  const std::map<std::string, double> want{{"a_rate", 5.0}, {"b_rate", 10.0}, {"c_rate", 5.0}};
  for (const auto & [name, v] : want)
  {
    const auto & y = out.at(name);
    EXPECT(y.dim() == 0 && y.scalar_type() == kFloat64);
    EXPECT(std::abs(y.item<double>() - v) < 1e-12);
  }
  // batched inputs keep their batch; batch-less ones broadcast against them
  auto in = three_rates_inputs();
  in["a"] = Scalar(at::tensor({1.0, 2.0, 3.0}, at::kDouble));
  const auto batched = model->value(in);
  EXPECT(batched.at("a_rate").sizes() == at::IntArrayRef({3}));
  EXPECT(at::allclose(batched.at("a_rate"), at::tensor({5.0, 15.0, 25.0}, at::kDouble)));
  EXPECT(batched.at("b_rate").sizes() == at::IntArrayRef({3}));
  // the same numbers as the eager route's forward (canonical batch (1,))
  eager::TensorMap raw(in.begin(), in.end());
  EXPECT(at::allclose(model->eager().forward(raw).at("a_rate"), batched.at("a_rate")));
}

TEST_CASE(authoring_default_dtype)
{
  EXPECT(get_default_dtype() == kFloat32);
  EXPECT(Scalar::full(1.0).scalar_type() == kFloat32 && Scalar::full(1.0).dim() == 0);
  EXPECT(load_model(three_rates, "eq")->eager().dtype() == kFloat32);
  EXPECT_THROWS(aoti::FatalError, set_default_dtype(kInt64), "is not a floating-point dtype");
  set_default_dtype(kFloat64);
  EXPECT(Scalar::full(1.0).scalar_type() == kFloat64);
  EXPECT(default_tensor_options().device() == Device(kCPU));
}

TEST_CASE(authoring_print)
{
  auto model = load_model(three_rates, "eq");
  std::ostringstream os;
  os << *model;
  EXPECT(os.str() == "Name: eq\nInput: a [Scalar]\na~1 [Scalar]\nb [Scalar]\nb~1 [Scalar]\n"
                     "c [Scalar]\nc~1 [Scalar]\nt [Scalar]\nt~1 [Scalar]\n"
                     "Output: a_rate [Scalar]\nb_rate [Scalar]\nc_rate [Scalar]");
  EXPECT(os.str() == model->eager().summary());
}

TEST_CASE(authoring_errors_of_the_eager_route)
{
  set_default_dtype(kFloat64);
  EXPECT_THROWS(aoti::FatalError,
                load_model(NEML2_EAGER_TEST_INPUTS "/missing.i", "eq"),
                "neml2::eager::Model::load_model: FileNotFoundError: input file");
  EXPECT_THROWS(
      aoti::FatalError, load_model(three_rates, "nope"), "neml2::eager::Model::load_model: ");
  auto model = load_model(three_rates, "eq");
  auto in = three_rates_inputs();
  in.erase("t~1");
  EXPECT_THROWS(aoti::FatalError,
                model->value(in),
                "neml2::eager::Model::value: FatalError: missing input 't~1'");
  EXPECT_THROWS(aoti::FatalError,
                model->value(three_rates_inputs(at::TensorOptions().dtype(kFloat32))),
                "neml2::eager::Model::value: FatalError: input 'a' has dtype Float but the model "
                "expects Double");
}

TEST_CASE(authoring_tracing_off_by_default)
{
  set_default_dtype(kFloat64);
  auto model = load_model(three_rates, "eq");
  for (int i = 0; i < 3; i++)
    model->value(three_rates_inputs());
  EXPECT_THROWS(aoti::FatalError,
                jit::last_executed_optimized_graph(),
                "neml2::jit::last_executed_optimized_graph: no traced graph has run");
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
