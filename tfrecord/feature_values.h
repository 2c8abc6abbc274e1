// Reading one serialized tf.train.Feature in place: its kind, how many values
// it holds and the values themselves, decoded straight into caller memory.
//
// A Feature (tfrecord/feature.proto) is `oneof kind { BytesList bytes_list
// = 1; FloatList float_list = 2; Int64List int64_list = 3; }`, so the tag
// byte of its list field gives the kind (0x0A bytes, 0x12 float, 0x1A int64).
// Each list holds `repeated value = 1`: bytes as one length-delimited field
// per value; floats packed (0x0A, 4 bytes each) or unpacked (0x0D fixed32);
// int64s packed (0x0A, varints) or unpacked (0x08 varint). Protobuf merges
// what it reads, and so does this: a list field seen twice concatenates,
// a list of another kind replaces the earlier one (oneof), unknown fields are
// skipped.
//
// Thread safety: pure functions over immutable bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/core/dtype.h"
#include "sluice/core/status.h"
#include "sluice/tfrecord/wire_reader.h"

namespace sluice {

// The kinds of a Feature, numbered as its oneof fields. kNone: no list set.
enum class FeatureKind : uint8_t { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

// "none", "bytes", "float", "int64".
std::string_view FeatureKindName(FeatureKind kind);
// The kind that holds values of `dtype`: string -> bytes, float32 -> float,
// int64 -> int64; kNone for any other dtype (no Feature can hold it).
FeatureKind FeatureKindOf(DType dtype);

// Where the value of one map entry (a Feature, or a FeatureList) lies in a
// serialized record. Aliases the record's bytes.
struct FeatureSlice {
  // The value message. When `whole_entry`, the whole map entry instead: its
  // value field occurs more than once and protobuf merges the occurrences,
  // so they are read in order from the entry.
  std::string_view bytes;
  bool whole_entry = false;
  bool present = false;  // the key occurs in the map (perhaps with an empty value)
};

// Calls fn(payload) -> Status for each value message of `slice`, in order:
// just `slice.bytes`, or each value field of a whole entry.
template <typename Fn>
Status ForEachValuePayload(const FeatureSlice& slice, Fn&& fn) {
  if (!slice.whole_entry) return fn(slice.bytes);
  constexpr uint32_t kValueTag = WireTag(2, WireType::kLengthDelimited);
  WireReader reader(slice.bytes);
  while (!reader.AtEnd()) {
    uint32_t tag;
    std::string_view payload;
    if (!reader.ReadTag(&tag)) return MalformedError("map entry", reader);
    if (tag != kValueTag) {
      if (!reader.SkipField(tag)) return MalformedError("map entry", reader);
      continue;
    }
    if (!reader.ReadLengthDelimited(&payload)) return MalformedError("map entry", reader);
    SLUICE_RETURN_IF_ERROR(fn(payload));
  }
  return OkStatus();
}

// A Feature as protobuf would hold it once parsed: the kind of the list set
// last, and how many values the list fields of that kind hold from the last
// change of kind on.
struct FeatureValues {
  FeatureSlice slice;
  FeatureKind kind = FeatureKind::kNone;
  uint32_t first_list = 0;  // ordinal, among the slice's list fields, of the first that counts
  int64_t count = 0;
};

// Finds the kind of the Feature at `slice` and counts its values, reading
// tags and lengths only (and, for packed int64s, the varint end bytes).
// InvalidArgument "malformed Feature: ..." on malformed bytes.
Status ResolveFeature(const FeatureSlice& slice, FeatureValues* values);

// Decodes the values into out[0, values.count); bytes as owned copies.
// REQUIRES: `values` from ResolveFeature, of the kind matching the overload.
Status CopyValues(const FeatureValues& values, TString* out);
Status CopyValues(const FeatureValues& values, float* out);
Status CopyValues(const FeatureValues& values, int64_t* out);
// The same for bytes, as views of the record (TString::View): the caller
// keeps the record's bytes alive as long as the views.
Status ViewValues(const FeatureValues& values, TString* out);

}  // namespace sluice
