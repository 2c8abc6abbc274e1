// The identity of a pipeline spec: its deterministic binary form (fields in
// field-number order, map entries sorted, so equal specs give equal bytes)
// and a short hash of it. The data service registers datasets under it
// (service/dispatcher_state.h); snapshot keeps one directory per
// fingerprint of its input (dataset/snapshot_dataset.h).
// Thread safety: pure functions.
#pragma once

#include <string>

#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {

std::string DeterministicSpecBytes(const spec::Pipeline& pipeline);

// 16 lowercase hex digits: FNV-1a (64 bits) of DeterministicSpecBytes.
// Not a cryptographic hash: users of it keep the bytes to tell a collision.
std::string SpecFingerprint(const spec::Pipeline& pipeline);

}  // namespace sluice
