// neml2::aoti::load_model: a DispatchedModel from the HIT stub neml2-compile writes
// (docs/guide/artifacts.md, "Layout"). Only what the stub needs is read, with a minimal reader
// (no full HIT parser): the block [Models]/[<name>] with `type = AOTIModel` and
// `artifact_path = <path>` (quoted or bare; a relative path is resolved against the stub's
// folder). Other sections ([Settings], [Tensors], [Drivers], ...) are skipped. Errors are
// FatalErrors naming the file and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

namespace neml2::aoti
{
/// The artifact folder named by [Models]/[<name>]/artifact_path of a stub, resolved to an absolute
/// path (FatalError with file:line when the block, its type or the path is missing or malformed).
NEML2_AOTI_EXPORT std::filesystem::path stub_artifact_path(const std::filesystem::path & stub,
                                                           const std::string & name);

/// Rows per chunk of load_model's default scheduler. Measured (Chaboche step, B = 1e5, one torch
/// thread, tests/cpp/dispatch/bench_dispatch.cpp): chunks of 500 / 1000 / 2000 / 5000 / 10000 /
/// 50000 took 0.31 / 0.34 / 0.37 / 0.41 / 0.48 / 0.93 of a direct call
/// (cache-resident working set, smaller all-reduce Newton groups); a batch up to this size is one
/// direct call.
inline constexpr int64_t default_chunk_size = 1000;

/// Load the model <name> of a stub over a scheduler (default: SimpleScheduler{cpu,
/// default_chunk_size}) with dtype kDouble (default) or kFloat; the artifact must have been
/// compiled for that dtype.
NEML2_AOTI_EXPORT DispatchedModel load_model(const std::filesystem::path & stub,
                                             const std::string & name,
                                             std::shared_ptr<WorkScheduler> scheduler = nullptr,
                                             c10::ScalarType dtype = c10::kDouble);
} // namespace neml2::aoti
