#include "neml2/csrc/aoti/Exception.h"

#include <utility>

namespace neml2::aoti
{
Exception::Exception(const std::string & message)
  : std::runtime_error(message)
{
}

Exception::~Exception() = default;

bool
Exception::recoverable() const noexcept
{
  return false;
}

FatalError::FatalError(const std::string & message)
  : Exception(message)
{
}

FatalError::~FatalError() = default;

bool
FatalError::recoverable() const noexcept
{
  return false;
}

ConvergenceError::ConvergenceError(const std::string & message)
  : Exception(message)
{
}

ConvergenceError::ConvergenceError(const std::string & message,
                                   at::Tensor converged_mask,
                                   at::Tensor unknowns)
  : Exception(message),
    _converged_mask(std::move(converged_mask)),
    _unknowns(std::move(unknowns))
{
}

ConvergenceError::~ConvergenceError() = default;

bool
ConvergenceError::recoverable() const noexcept
{
  return true;
}

bool
ConvergenceError::has_failure_data() const noexcept
{
  return _converged_mask.defined() && _unknowns.defined();
}

const at::Tensor &
ConvergenceError::converged_mask() const noexcept
{
  return _converged_mask;
}

const at::Tensor &
ConvergenceError::unknowns() const noexcept
{
  return _unknowns;
}

std::string
describe(const std::exception_ptr & error)
{
  if (!error)
    return "no exception";
  try
  {
    std::rethrow_exception(error);
  }
  catch (const std::exception & e)
  {
    return e.what();
  }
  catch (...)
  {
    return "unknown exception";
  }
}

bool
is_recoverable(const std::exception_ptr & error) noexcept
{
  if (!error)
    return false;
  try
  {
    std::rethrow_exception(error);
  }
  catch (const Exception & e)
  {
    return e.recoverable();
  }
  catch (...)
  {
    return false;
  }
}

namespace
{
std::string
aggregate_message(const std::vector<std::exception_ptr> & errors)
{
  std::string message = std::to_string(errors.size()) + " asynchronous chunk(s) failed";
  for (std::size_t i = 0; i < errors.size(); ++i)
    message += "\n  [" + std::to_string(i) + "] " + describe(errors[i]);
  return message;
}

bool
all_recoverable(const std::vector<std::exception_ptr> & errors) noexcept
{
  if (errors.empty())
    return false;
  for (const auto & error : errors)
    if (!is_recoverable(error))
      return false;
  return true;
}
} // namespace

AggregateError::AggregateError(std::vector<std::exception_ptr> errors)
  : Exception(aggregate_message(errors)),
    _errors(std::move(errors)),
    _recoverable(all_recoverable(_errors))
{
}

AggregateError::~AggregateError() = default;

bool
AggregateError::recoverable() const noexcept
{
  return _recoverable;
}

const std::vector<std::exception_ptr> &
AggregateError::errors() const noexcept
{
  return _errors;
}
} // namespace neml2::aoti
