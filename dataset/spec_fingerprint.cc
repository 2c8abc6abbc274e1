#include "sluice/dataset/spec_fingerprint.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace sluice {
namespace {

// FNV-1a, 64 bits.
uint64_t Fnv1a(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

std::string DeterministicSpecBytes(const spec::Pipeline& pipeline) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    pipeline.SerializeToCodedStream(&coded);
    coded.Trim();
  }
  return bytes;
}

std::string SpecFingerprint(const spec::Pipeline& pipeline) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(Fnv1a(DeterministicSpecBytes(pipeline))));
  return hex;
}

}  // namespace sluice
