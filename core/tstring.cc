#include "sluice/core/tstring.h"

#include <cstring>
#include <ostream>

#include <new>

namespace sluice {

void TString::Assign(std::string_view bytes) {
  if (bytes.empty()) {
    Free();
    Release();
    return;
  }
  // From operator new, as std::string's bytes: owned strings are the cold
  // path (views are the hot one), and tfrecord_parse_bench's copying rows
  // page-faulted more through the scalable allocator.
  auto* copy = static_cast<char*>(::operator new(bytes.size()));
  std::memcpy(copy, bytes.data(), bytes.size());  // before Free: `bytes` may be this string's own
  Free();
  data_ = copy;
  size_ = bytes.size();
  owned_ = true;
}

void TString::FreeOwned() { ::operator delete(const_cast<char*>(data_)); }

std::ostream& operator<<(std::ostream& out, const TString& value) {
  return out << std::string_view(value);
}

}  // namespace sluice
