// The preprocessing part of an exported bundle (model/export.h):
//   preprocessing.pb   the raw inputs and the element functions' specs
//                      (sluice.model.Preprocessing, model/model.proto)
//   assets/            the files the functions read (a vocabulary for
//                      lookup or wordpiece), copied in at export
// A file a function reads (a field of its spec marked (file_access) = READ
// in dataset/pipeline_spec.proto, such as lookup's vocabulary_file) is
// copied into assets/ and its path in the stored spec rewritten relative to
// the bundle, so a bundle is self-contained and may be moved or copied as a
// directory; on load the path is resolved against the bundle's directory
// again.
//
// Loading treats the files as untrusted: preprocessing.pb is read up to
// kMaxPreprocessingBytes, the counts of raw inputs and functions are bounded
// (model/preprocessing.h), a path leaving the bundle is refused, and every
// failure is DataLoss naming the file (and the function).
// Thread safety: pure functions of the file system.
#pragma once

#include <optional>
#include <string>

#include "sluice/model/preprocessing.h"

namespace sluice {

inline constexpr size_t kMaxPreprocessingBytes = size_t{64} << 20;

// Writes preprocessing.pb and assets/ into the bundle directory `bundle`
// (which exists). InvalidArgument naming the function when one cannot be
// written as a spec or a file it names cannot be copied.
Status WritePreprocessing(const Preprocessing& preprocessing, const std::string& bundle);

// The bundle's preprocessing, its functions rebuilt from their specs;
// nullopt when the bundle has none (no preprocessing.pb).
Result<std::optional<Preprocessing>> ReadPreprocessing(const std::string& bundle);

}  // namespace sluice
