// libneml2_eager.so: interpreter guard and Python-exception normalization. This host links
// libpython itself (Python3::Python); libneml2_eager.so leaves the C-API symbols undefined.
#include <Python.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/eager/python.h"

using namespace neml2;

namespace
{
eager::TensorMap
inputs()
{
  return {{"x", at::arange(4.0, at::kDouble)}};
}
} // namespace

TEST_CASE(starts_interpreter_once)
{
  EXPECT(!Py_IsInitialized());
  EXPECT(!eager::started_interpreter());
  eager::ensure_interpreter();
  EXPECT(Py_IsInitialized());
  EXPECT(eager::started_interpreter());
  eager::ensure_interpreter();
  auto out = eager::call("forward", "eager_helpers", "double", inputs());
  EXPECT(at::equal(out.at("y"), 2 * inputs().at("x")));
  // The GIL was released after start-up: this thread does not hold it between calls.
  EXPECT(PyGILState_Check() == 0);
}

TEST_CASE(reuses_running_interpreter)
{
  // The host starts its own interpreter (as the environment's Python, like an embedding
  // application would) before neml2 is used.
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;
  if (const char * venv = std::getenv("VIRTUAL_ENV"))
    PyConfig_SetBytesString(
        &config, &config.program_name, (std::string(venv) + "/bin/python").c_str());
  EXPECT(!PyStatus_Exception(Py_InitializeFromConfig(&config)));
  PyConfig_Clear(&config);
  PyThreadState * state = PyEval_SaveThread();
  eager::ensure_interpreter();
  EXPECT(!eager::started_interpreter());
  auto out = eager::call("forward", "eager_helpers", "double", inputs());
  EXPECT(at::equal(out.at("y"), 2 * inputs().at("x")));
  PyEval_RestoreThread(state);
  EXPECT(Py_IsInitialized());
}

TEST_CASE(python_error_is_fatal_across_libraries)
{
  try
  {
    eager::call("neml2::eager::Model::forward", "eager_helpers", "fail_value", inputs());
    check::fail(__FILE__, __LINE__, "no exception");
  }
  catch (const aoti::Exception & e) // thrown inside libneml2_eager.so, typeinfo from libneml2.so
  {
    EXPECT(!e.recoverable());
    EXPECT(dynamic_cast<const aoti::FatalError *>(&e) != nullptr);
    EXPECT(std::string(e.what()) == "neml2::eager::Model::forward: ValueError: boom 42");
  }
}

TEST_CASE(convergence_error_is_recoverable)
{
  try
  {
    eager::call("forward", "eager_helpers", "fail_convergence", inputs());
    check::fail(__FILE__, __LINE__, "no exception");
  }
  catch (const aoti::Exception & e)
  {
    EXPECT(e.recoverable());
    const auto * conv = dynamic_cast<const aoti::ConvergenceError *>(&e);
    EXPECT(conv != nullptr);
    EXPECT(std::string(e.what()) == "Newton failed to converge in 25 iterations");
    EXPECT(!conv->has_failure_data());
  }
}

TEST_CASE(convergence_error_carries_failure_data)
{
  try
  {
    eager::call("forward", "eager_helpers", "fail_convergence_captured", inputs());
    check::fail(__FILE__, __LINE__, "no exception");
  }
  catch (const aoti::ConvergenceError & e)
  {
    EXPECT(e.has_failure_data());
    EXPECT(at::equal(e.converged_mask(), at::tensor({1, 0}).to(at::kBool)));
    EXPECT(at::equal(e.unknowns(), at::arange(1.0, 5.0, at::kDouble).reshape({2, 2})));
  }
}

TEST_CASE(malformed_results_are_fatal)
{
  EXPECT_THROWS(aoti::FatalError,
                eager::call("forward", "eager_helpers", "not_a_dict", inputs()),
                "forward: eager_helpers.not_a_dict returned int, expected dict[str, Tensor]");
  EXPECT_THROWS(aoti::FatalError,
                eager::call("forward", "eager_helpers", "not_tensors", inputs()),
                "forward: eager_helpers.not_tensors returned a dict that is not dict[str, Tensor]");
}

TEST_CASE(import_errors_are_fatal)
{
  EXPECT_THROWS(aoti::FatalError,
                eager::call("load", "no_such_module_xyz", "f", {}),
                "load: ModuleNotFoundError: No module named 'no_such_module_xyz'");
  EXPECT_THROWS(aoti::FatalError,
                eager::call("load", "eager_helpers", "missing", {}),
                "load: AttributeError:");
}

TEST_CASE(concurrent_calls_hold_the_gil)
{
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back(
        [t, &ok]
        {
          for (int i = 0; i < 20; ++i)
          {
            auto x = at::full({3}, double(t * 100 + i), at::kDouble);
            auto out = eager::call("forward", "eager_helpers", "double", {{"x", x}});
            if (!at::equal(out.at("y"), 2 * x))
              return;
          }
          ok[t] = 1;
        });
  for (auto & th : threads)
    th.join();
  for (int v : ok)
    EXPECT(v == 1);
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
