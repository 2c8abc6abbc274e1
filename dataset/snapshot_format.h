// The snapshot directory (docs/snapshot-format.md): segment files of
// TFRecord-framed element records (dataset/element_record.h) and, written
// last, the manifest that says what they hold. A directory without a
// manifest (a run that stopped early) is never read as a snapshot.
//
// The manifest file, "manifest", is one TFRecord record (its length and
// data checked by masked CRC32C) holding a serialized
// sluice.snapshot.Manifest (dataset/snapshot_manifest.proto), and nothing
// after it. It is written atomically (core/durable_file.h) after every
// segment it names has been fsynced.
// Everything read from a manifest is untrusted: ReadManifest checks its
// version, element spec, compression, order, counts (which must add up,
// shard by shard, to the round-robin share of num_elements, or in BY_SHARD
// order to num_elements in all) and file names (plain relative paths inside
// the directory) before anything else reads it.
// Thread safety: pure functions.
#pragma once

#include <google/protobuf/repeated_ptr_field.h>

#include <cstdint>
#include <string>

#include "sluice/core/element.h"
#include "sluice/dataset/snapshot_manifest.pb.h"

namespace sluice {

// The version written; every version from kOldestSnapshotFormatVersion up
// is read (version 1 has no `order`: its shards are round robin).
inline constexpr uint32_t kSnapshotFormatVersion = 2;
inline constexpr uint32_t kOldestSnapshotFormatVersion = 1;
inline constexpr char kSnapshotManifestName[] = "manifest";
// The most shards, and segments per shard, a manifest may list.
inline constexpr int64_t kMaxSnapshotShards = 4096;
inline constexpr int64_t kMaxSnapshotSegments = 1 << 20;

// "<directory>/manifest".
std::string ManifestPath(const std::string& directory);

void ElementSpecToProto(const ElementSpec& spec, google::protobuf::RepeatedPtrField<spec::ComponentSpec>* out);
// InvalidArgument naming the entry of `field` for an unknown dtype, a rank
// over kMaxRank or a dim below -1.
Result<ElementSpec> ElementSpecFromProto(const google::protobuf::RepeatedPtrField<spec::ComponentSpec>& protos,
                                         std::string_view field);

// Writes `manifest` into `directory` atomically. REQUIRES: every segment it
// names is already synced.
Status WriteManifest(const std::string& directory, const snapshot::Manifest& manifest);

// The checked manifest of `directory`: NotFound when it has none (no
// snapshot, or one that never finished), DataLoss naming the file and what
// is wrong when it is damaged or inconsistent.
Result<snapshot::Manifest> ReadManifest(const std::string& directory);

// A manifest from its serialized bytes, checked as ReadManifest checks it
// (DataLoss, without a file name).
Result<snapshot::Manifest> ParseManifest(std::string_view bytes);

// The elements shard `shard` of `shards` holds of num_elements (round robin).
int64_t ShardShare(int64_t num_elements, int64_t shards, int64_t shard);

}  // namespace sluice
