// The neml2::aoti exception taxonomy and guard (docs/design/runtime.md, "Exceptions", "Guard").
#include <new>
#include <stdexcept>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/guard.h"

using namespace neml2::aoti;

TEST_CASE(catch_by_base_class)
{
  EXPECT_THROWS(Exception, throw FatalError("bad input"), "bad input");
  EXPECT_THROWS(Exception, throw ConvergenceError("diverged"), "diverged");
  EXPECT_THROWS(std::runtime_error, throw ConvergenceError("diverged"), "diverged");
  EXPECT_THROWS(std::exception, throw AggregateError({}), "0 asynchronous");
}

TEST_CASE(recoverable_flags)
{
  try
  {
    throw ConvergenceError("x");
  }
  catch (const Exception & e)
  {
    EXPECT(e.recoverable());
  }
  try
  {
    throw FatalError("x");
  }
  catch (const Exception & e)
  {
    EXPECT(!e.recoverable());
  }
  EXPECT(!Exception("plain").recoverable());
}

TEST_CASE(convergence_error_failure_data)
{
  ConvergenceError plain("x");
  EXPECT(!plain.has_failure_data());
  EXPECT(!plain.converged_mask().defined());
  auto mask = at::tensor({1, 0, 1}).to(at::kBool);
  auto unknowns = at::arange(6.0).reshape({3, 2});
  ConvergenceError captured("x", mask, unknowns);
  EXPECT(captured.has_failure_data());
  EXPECT(at::equal(captured.converged_mask(), mask));
  EXPECT(at::equal(captured.unknowns(), unknowns));
}

TEST_CASE(aggregate_recoverable_iff_all_parts_are)
{
  auto conv = std::make_exception_ptr(ConvergenceError("chunk 0 diverged"));
  auto fatal = std::make_exception_ptr(FatalError("chunk 1 bad"));
  auto foreign = std::make_exception_ptr(std::bad_alloc());
  EXPECT(AggregateError({conv, conv}).recoverable());
  EXPECT(!AggregateError({conv, fatal}).recoverable());
  EXPECT(!AggregateError({conv, foreign}).recoverable());
  EXPECT(!AggregateError({}).recoverable());
  AggregateError both({conv, fatal});
  EXPECT(both.errors().size() == 2);
  EXPECT(both.errors()[0] == conv && both.errors()[1] == fatal);
  const std::string what = both.what();
  EXPECT(what.find("2 asynchronous chunk(s) failed") != std::string::npos);
  EXPECT(what.find("[0] chunk 0 diverged") != std::string::npos);
  EXPECT(what.find("[1] chunk 1 bad") != std::string::npos);
}

TEST_CASE(aggregate_is_catchable_as_exception)
{
  try
  {
    throw AggregateError({std::make_exception_ptr(ConvergenceError("a"))});
  }
  catch (const Exception & e)
  {
    EXPECT(e.recoverable());
    EXPECT(dynamic_cast<const AggregateError *>(&e) != nullptr);
  }
}

TEST_CASE(guard_passes_neml2_exceptions_through)
{
  EXPECT_THROWS(
      ConvergenceError, guard("forward", [] { throw ConvergenceError("diverged"); }), "diverged");
  try
  {
    guard("forward", [] { throw ConvergenceError("diverged"); });
  }
  catch (const Exception & e)
  {
    EXPECT(std::string(e.what()) == "diverged"); // unchanged, no op prefix
    EXPECT(e.recoverable());
  }
}

TEST_CASE(guard_converts_foreign_exceptions)
{
  EXPECT_THROWS(
      FatalError, guard("forward", [] { throw std::out_of_range("idx"); }), "forward: idx");
  EXPECT_THROWS(FatalError, guard("jvp", [] { throw std::bad_alloc(); }), "jvp: ");
  EXPECT_THROWS(FatalError, guard("jacobian", [] { throw 42; }), "jacobian: unknown exception");
  EXPECT_THROWS(FatalError,
                guard("forward", [] { TORCH_CHECK(false, "torch says no"); }),
                "forward: torch says no");
  try
  {
    guard("forward", [] { TORCH_CHECK(false, "torch says no"); });
  }
  catch (const FatalError & e)
  {
    EXPECT(!e.recoverable());
  }
}

TEST_CASE(guard_returns_values)
{
  EXPECT(guard("op", [] { return 7; }) == 7);
  int x = 0;
  int & ref = guard("op", [&]() -> int & { return x; });
  ref = 3;
  EXPECT(x == 3);
}

TEST_CASE(describe_and_is_recoverable)
{
  EXPECT(describe(std::make_exception_ptr(std::runtime_error("boom"))) == "boom");
  EXPECT(describe(std::make_exception_ptr(1)) == "unknown exception");
  EXPECT(describe(nullptr) == "no exception");
  EXPECT(is_recoverable(std::make_exception_ptr(ConvergenceError("c"))));
  EXPECT(!is_recoverable(std::make_exception_ptr(FatalError("f"))));
  EXPECT(!is_recoverable(nullptr));
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
