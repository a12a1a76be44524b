// The neml2 error taxonomy shared by every route (docs/design/runtime.md, "Exceptions").
//
//   Exception         base class, std::runtime_error with a virtual recoverable()
//   FatalError        bad input / artifact / shape / dtype / device: never recoverable
//   ConvergenceError  Newton divergence, iteration cap, substepping exhausted: recoverable
//   AggregateError    several asynchronous chunks failed: recoverable iff every part is
//
// Every class has its key function (the destructor) defined out of line in libneml2.so and is
// exported, so its typeinfo is unique and a catch in another shared library or executable matches.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// Base class of every neml2 exception.
class NEML2_AOTI_EXPORT Exception : public std::runtime_error
{
public:
  explicit Exception(const std::string & message);
  ~Exception() override;

  /// True when the host may recover, e.g. by cutting its time step and retrying.
  [[nodiscard]] virtual bool recoverable() const noexcept;
};

/// A non-recoverable error: bad input, bad artifact, shape/dtype/device mismatch, internal error.
class NEML2_AOTI_EXPORT FatalError : public Exception
{
public:
  explicit FatalError(const std::string & message);
  ~FatalError() override;

  [[nodiscard]] bool recoverable() const noexcept override;
};

/// A recoverable solver failure (divergence, iteration cap, substepping exhausted).
///
/// When the failing solve was re-run in masked mode (NEML2_CAPTURE_SOLVE_FAILURE), the error
/// carries the per-element converged mask and the unknowns at the point of failure.
class NEML2_AOTI_EXPORT ConvergenceError : public Exception
{
public:
  explicit ConvergenceError(const std::string & message);
  ConvergenceError(const std::string & message, at::Tensor converged_mask, at::Tensor unknowns);
  ~ConvergenceError() override;

  [[nodiscard]] bool recoverable() const noexcept override;

  /// True when converged_mask() and unknowns() hold captured data.
  [[nodiscard]] bool has_failure_data() const noexcept;
  /// Boolean (*B) mask of the elements that converged; undefined unless has_failure_data().
  [[nodiscard]] const at::Tensor & converged_mask() const noexcept;
  /// Unknowns at the point of failure; undefined unless has_failure_data().
  [[nodiscard]] const at::Tensor & unknowns() const noexcept;

private:
  at::Tensor _converged_mask;
  at::Tensor _unknowns;
};

/// Several errors raised by independent asynchronous chunks of one call.
///
/// recoverable() is true iff there is at least one part and every part is a recoverable neml2
/// Exception; a foreign exception (std::bad_alloc, c10::Error, ...) makes the aggregate fatal.
class NEML2_AOTI_EXPORT AggregateError : public Exception
{
public:
  explicit AggregateError(std::vector<std::exception_ptr> errors);
  ~AggregateError() override;

  [[nodiscard]] bool recoverable() const noexcept override;

  /// The individual errors, in the order they were collected.
  [[nodiscard]] const std::vector<std::exception_ptr> & errors() const noexcept;

private:
  std::vector<std::exception_ptr> _errors;
  bool _recoverable;
};

/// The message of an arbitrary exception_ptr ("unknown exception" for non-std exceptions).
NEML2_AOTI_EXPORT std::string describe(const std::exception_ptr & error);

/// True when the exception_ptr holds a recoverable neml2 Exception.
NEML2_AOTI_EXPORT bool is_recoverable(const std::exception_ptr & error) noexcept;
} // namespace neml2::aoti
