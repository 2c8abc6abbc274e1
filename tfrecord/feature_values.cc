#include "sluice/tfrecord/feature_values.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace sluice {
namespace {

// Fields of BytesList / FloatList / Int64List: `repeated value = 1`.
constexpr uint32_t kValuesTag = WireTag(1, WireType::kLengthDelimited);  // bytes, or packed
constexpr uint32_t kUnpackedFloatTag = WireTag(1, WireType::kFixed32);
constexpr uint32_t kUnpackedInt64Tag = WireTag(1, WireType::kVarint);

Status Malformed(const WireReader& reader) { return MalformedError("Feature", reader); }

// Calls fn(kind, list payload) for each list field of the Feature(s) at
// `slice`, in order.
template <typename Fn>
Status ForEachList(const FeatureSlice& slice, Fn&& fn) {
  return ForEachValuePayload(slice, [&](std::string_view feature) -> Status {
    WireReader reader(feature);
    while (!reader.AtEnd()) {
      uint32_t tag;
      if (!reader.ReadTag(&tag)) return Malformed(reader);
      const uint32_t field = tag >> 3;
      if (WireTypeOf(tag) != WireType::kLengthDelimited || field < 1 || field > 3) {
        if (!reader.SkipField(tag)) return Malformed(reader);
        continue;
      }
      std::string_view list;
      if (!reader.ReadLengthDelimited(&list)) return Malformed(reader);
      SLUICE_RETURN_IF_ERROR(fn(static_cast<FeatureKind>(field), list));
    }
    return OkStatus();
  });
}

// Adds the number of values in one list message of `kind` to *count.
Status CountValues(FeatureKind kind, std::string_view list, int64_t* count) {
  WireReader reader(list);
  while (!reader.AtEnd()) {
    uint32_t tag;
    if (!reader.ReadTag(&tag)) return Malformed(reader);
    if (tag == kValuesTag) {
      std::string_view values;
      if (!reader.ReadLengthDelimited(&values)) return Malformed(reader);
      if (kind == FeatureKind::kBytes) {
        ++*count;
      } else if (kind == FeatureKind::kFloat) {
        if (values.size() % 4 != 0) {
          return InvalidArgumentError("malformed Feature: packed floats of ", values.size(),
                                      " bytes, not a multiple of 4");
        }
        *count += static_cast<int64_t>(values.size() / 4);
      } else {
        // Each varint ends with the one byte that has its top bit clear.
        if (!values.empty() && static_cast<uint8_t>(values.back()) >= 0x80) {
          return InvalidArgumentError("malformed Feature: truncated varint in packed int64s");
        }
        *count += std::count_if(values.begin(), values.end(),
                                [](char c) { return static_cast<uint8_t>(c) < 0x80; });
      }
    } else if (kind == FeatureKind::kFloat && tag == kUnpackedFloatTag) {
      uint32_t ignored;
      if (!reader.ReadFixed32(&ignored)) return Malformed(reader);
      ++*count;
    } else if (kind == FeatureKind::kInt64 && tag == kUnpackedInt64Tag) {
      uint64_t ignored;
      if (!reader.ReadVarint(&ignored)) return Malformed(reader);
      ++*count;
    } else if (!reader.SkipField(tag)) {
      return Malformed(reader);
    }
  }
  return OkStatus();
}

// Where CopyValues writes next, and where its space ends. The copy pass reads
// the bytes the count pass counted, so running out of space is a bug.
template <typename T>
struct Cursor {
  T* pos;
  T* end;
  T* Take(int64_t n) {
    SLUICE_CHECK(end - pos >= n) << "a Feature holds more values than ResolveFeature counted";
    T* taken = pos;
    pos += n;
    return taken;
  }
};

// Bytes values are written as owned copies or as views of the record.
struct BytesCursor : Cursor<TString> {
  bool view;
};

// Decodes one list message into the cursor: the overloads for each kind.
Status DecodeList(std::string_view list, BytesCursor& out) {
  WireReader reader(list);
  while (!reader.AtEnd()) {
    uint32_t tag;
    if (!reader.ReadTag(&tag)) return Malformed(reader);
    if (tag != kValuesTag) {
      if (!reader.SkipField(tag)) return Malformed(reader);
      continue;
    }
    std::string_view value;
    if (!reader.ReadLengthDelimited(&value)) return Malformed(reader);
    TString* slot = out.Take(1);
    if (out.view) {
      *slot = TString::View(value);
    } else {
      *slot = value;
    }
  }
  return OkStatus();
}

Status DecodeList(std::string_view list, Cursor<float>& out) {
  WireReader reader(list);
  while (!reader.AtEnd()) {
    uint32_t tag;
    if (!reader.ReadTag(&tag)) return Malformed(reader);
    if (tag == kValuesTag) {
      std::string_view packed;  // a multiple of 4 bytes: CountValues checked
      if (!reader.ReadLengthDelimited(&packed)) return Malformed(reader);
      if (packed.empty()) continue;
      std::memcpy(out.Take(static_cast<int64_t>(packed.size() / 4)), packed.data(), packed.size());
    } else if (tag == kUnpackedFloatTag) {
      uint32_t bits;
      if (!reader.ReadFixed32(&bits)) return Malformed(reader);
      *out.Take(1) = std::bit_cast<float>(bits);
    } else if (!reader.SkipField(tag)) {
      return Malformed(reader);
    }
  }
  return OkStatus();
}

Status DecodeList(std::string_view list, Cursor<int64_t>& out) {
  WireReader reader(list);
  while (!reader.AtEnd()) {
    uint32_t tag;
    uint64_t value;
    if (!reader.ReadTag(&tag)) return Malformed(reader);
    if (tag == kValuesTag) {
      std::string_view packed;
      if (!reader.ReadLengthDelimited(&packed)) return Malformed(reader);
      WireReader values(packed);
      while (!values.AtEnd()) {
        if (!values.ReadVarint(&value)) return Malformed(values);
        *out.Take(1) = static_cast<int64_t>(value);
      }
    } else if (tag == kUnpackedInt64Tag) {
      if (!reader.ReadVarint(&value)) return Malformed(reader);
      *out.Take(1) = static_cast<int64_t>(value);
    } else if (!reader.SkipField(tag)) {
      return Malformed(reader);
    }
  }
  return OkStatus();
}

template <typename CursorT>
Status DecodeValues(const FeatureValues& values, CursorT& cursor) {
  uint32_t ordinal = 0;
  // Lists before values.first_list were replaced by a list of another kind.
  return ForEachList(values.slice, [&](FeatureKind, std::string_view list) -> Status {
    return ordinal++ < values.first_list ? OkStatus() : DecodeList(list, cursor);
  });
}

}  // namespace

std::string_view FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kNone:
      return "none";
    case FeatureKind::kBytes:
      return "bytes";
    case FeatureKind::kFloat:
      return "float";
    case FeatureKind::kInt64:
      return "int64";
  }
  return "?";
}

FeatureKind FeatureKindOf(DType dtype) {
  switch (dtype) {
    case DType::kString:
      return FeatureKind::kBytes;
    case DType::kFloat32:
      return FeatureKind::kFloat;
    case DType::kInt64:
      return FeatureKind::kInt64;
    default:
      return FeatureKind::kNone;
  }
}

Status ResolveFeature(const FeatureSlice& slice, FeatureValues* values) {
  *values = FeatureValues{.slice = slice};
  uint32_t ordinal = 0;
  return ForEachList(slice, [&](FeatureKind kind, std::string_view list) {
    if (kind != values->kind) {  // a oneof: the new list replaces the old
      values->kind = kind;
      values->first_list = ordinal;
      values->count = 0;
    }
    ++ordinal;
    return CountValues(kind, list, &values->count);
  });
}

Status CopyValues(const FeatureValues& values, TString* out) {
  BytesCursor cursor{{out, out + values.count}, /*view=*/false};
  return DecodeValues(values, cursor);
}
Status ViewValues(const FeatureValues& values, TString* out) {
  BytesCursor cursor{{out, out + values.count}, /*view=*/true};
  return DecodeValues(values, cursor);
}
Status CopyValues(const FeatureValues& values, float* out) {
  Cursor<float> cursor{out, out + values.count};
  return DecodeValues(values, cursor);
}
Status CopyValues(const FeatureValues& values, int64_t* out) {
  Cursor<int64_t> cursor{out, out + values.count};
  return DecodeValues(values, cursor);
}

}  // namespace sluice
