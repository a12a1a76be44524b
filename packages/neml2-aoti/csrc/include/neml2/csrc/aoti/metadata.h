// An artifact's metadata.json: the format and schema versions this runtime reads, and the loader
// checks (packages/neml2-aoti/ARTIFACT.md §5) on their own, without loading the graphs.
//
// These are the only implementation of the checks: the Model loader (csrc/aoti/metadata.cpp)
// runs them, and Python reaches them through neml2.aoti._aoti.read_metadata (the binding behind
// neml2.aoti.compile.read_metadata), whose writer also takes the constants from here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// metadata.json's "format".
inline constexpr const char * kArtifactFormat = "neml2-aoti";
/// The schema version this neml2's neml2-compile writes; kOldestSchemaVersion ... kSchemaVersion
/// are read (version 3 added "batch_rows" to graph signatures, which version 2 graphs lack).
inline constexpr int64_t kSchemaVersion = 3;
inline constexpr int64_t kOldestSchemaVersion = 2;

/// The text of an artifact's metadata.json once the loader's checks pass: `path` is the artifact
/// folder or its metadata file (as for Model); the folder and metadata.json exist, the text is
/// JSON, and format, schema_version, torch_version (major.minor.patch) and cxx11_abi match this
/// runtime. With a device or a dtype (the other defaults to cpu / float64), also the
/// <device>/<dtype> leaf: it is recorded and present (else the message lists the leaves there
/// are), this CPU has the instruction-set extensions it was compiled for, and every graph file of
/// its sha1 map exists with that content hash (a leaf without one is refused). Graph signatures
/// are not compared (that needs the graphs loaded: Model does it). Every failure is a FatalError
/// naming the file and the fix.
NEML2_AOTI_EXPORT std::string
read_artifact_metadata(const std::filesystem::path & path,
                       const std::optional<c10::Device> & device = std::nullopt,
                       std::optional<c10::ScalarType> dtype = std::nullopt);
} // namespace neml2::aoti
