#include "core/tstring.h"

#include <cstring>
#include <ostream>

#include "core/aligned_memory.h"
#include "core/logging.h"

namespace sluice {

void TString::Assign(std::string_view bytes) {
  if (bytes.empty()) {
    Free();
    Release();
    return;
  }
  // From the host object allocator: elements are often freed on another
  // thread than the one that made them (core/aligned_memory.h).
  auto* copy = static_cast<char*>(AlignedAllocate(bytes.size(), 16));
  SLUICE_CHECK(copy != nullptr) << "out of memory copying a string of " << bytes.size() << " bytes";
  std::memcpy(copy, bytes.data(), bytes.size());  // before Free: `bytes` may be this string's own
  Free();
  data_ = copy;
  size_ = bytes.size();
  owned_ = true;
}

void TString::FreeOwned() { AlignedFree(const_cast<char*>(data_)); }

std::ostream& operator<<(std::ostream& out, const TString& value) {
  return out << std::string_view(value);
}

}  // namespace sluice
