// TString: the element type of string tensors (DType::kString), after
// TensorFlow's tstring. A TString either owns its bytes (a heap block of its
// own) or is a view of bytes that something else owns: a TFRecord read
// chunk, another string tensor's elements. Views are what let the record
// reader hand out records, and the Example parser bytes features, without
// copying them.
//
// Who keeps a view's bytes alive: never the TString itself. Inside a tensor
// its Buffer does: every view among a string buffer's elements points into
// the buffer's own extra bytes or into one of its backings
// (Buffer::AddBacking), so a view is valid as long as any tensor sharing
// that buffer. Whoever makes a view (TString::View) adds the backing.
//
// Copying is always safe: a copy (construction or assignment) owns a copy of
// the bytes, of a view too, so a copied element never dangles. A move keeps
// what it moves (a moved view stays a view: the mover answers for its
// backing). Copying views as views, with their backings, is Tensor's
// CopyIntoRows.
//
// An empty TString owns nothing and views nothing; data() is then a valid
// pointer to no bytes. Layout: 24 bytes.
// Thread safety: a plain value; const methods may be called from any thread.
#pragma once

#include <compare>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace sluice {

class TString {
 public:
  TString() = default;
  // An owned copy of `bytes`.
  explicit TString(std::string_view bytes) { Assign(bytes); }
  // A view of `bytes`. REQUIRES: the bytes outlive the view (see above).
  static TString View(std::string_view bytes) {
    TString view;
    if (!bytes.empty()) {
      view.data_ = bytes.data();
      view.size_ = bytes.size();
    }
    return view;
  }

  TString(const TString& other) { Assign(other); }
  TString(TString&& other) noexcept : data_(other.data_), size_(other.size_), owned_(other.owned_) {
    other.Release();
  }
  TString& operator=(const TString& other) {
    if (this != &other) Assign(other);
    return *this;
  }
  TString& operator=(TString&& other) noexcept {
    if (this != &other) {
      Free();
      data_ = other.data_;
      size_ = other.size_;
      owned_ = other.owned_;
      other.Release();
    }
    return *this;
  }
  // Replaces the value with an owned copy of `bytes` (which may alias it).
  TString& operator=(std::string_view bytes) {
    Assign(bytes);
    return *this;
  }
  ~TString() { Free(); }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // True for a non-empty view; an empty TString is neither view nor owner.
  bool is_view() const { return size_ > 0 && !owned_; }
  // The bytes owned, 0 for a view: what this element itself keeps allocated.
  size_t owned_bytes() const { return owned_ ? size_ : 0; }

  operator std::string_view() const { return {data_, size_}; }  // NOLINT: a string is a view of bytes
  explicit operator std::string() const { return std::string(data_, size_); }

  friend bool operator==(const TString& a, const TString& b) {
    return std::string_view(a) == std::string_view(b);
  }
  friend bool operator==(const TString& a, std::string_view b) { return std::string_view(a) == b; }
  friend std::strong_ordering operator<=>(const TString& a, const TString& b) {
    return std::string_view(a) <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const TString& a, std::string_view b) {
    return std::string_view(a) <=> b;
  }

 private:
  void Assign(std::string_view bytes);
  void Free() {
    if (owned_) FreeOwned();
  }
  void FreeOwned();
  // Forgets the value without freeing it (after a move).
  void Release() {
    data_ = "";
    size_ = 0;
    owned_ = false;
  }

  const char* data_ = "";
  size_t size_ = 0;
  bool owned_ = false;  // data_ is a heap block of size_ bytes that this frees
};

// Writes the bytes as they are.
std::ostream& operator<<(std::ostream& out, const TString& value);

}  // namespace sluice
