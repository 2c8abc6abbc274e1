#include "sluice/core/shape.h"

#include <algorithm>

namespace sluice {

Shape::Shape(std::initializer_list<int64_t> dims)
    : Shape(std::span<const int64_t>(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const int64_t> dims) {
  SLUICE_CHECK(dims.size() <= kMaxRank) << "rank " << dims.size() << " exceeds " << kMaxRank;
  rank_ = static_cast<int>(dims.size());
  std::copy(dims.begin(), dims.end(), dims_.begin());
}

Result<Shape> Shape::FromDims(std::span<const int64_t> dims) {
  if (dims.size() > kMaxRank) {
    return InvalidArgumentError("shape of rank ", dims.size(), " exceeds the maximum rank ",
                                kMaxRank);
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return InvalidArgumentError("dimension ", i, " is negative (", dims[i], ")");
  }
  return Shape(dims);
}

Result<int64_t> Shape::CheckedNumElements() const {
  // An empty shape has no elements, whatever its other dims multiply to.
  if (std::find(dims().begin(), dims().end(), 0) != dims().end()) return 0;
  int64_t n = 1;
  for (int i = 0; i < rank_; ++i) {
    if (__builtin_mul_overflow(n, dims_[i], &n)) {
      return InvalidArgumentError("shape ", *this, " has more elements than fit in int64");
    }
  }
  return n;
}

Shape Shape::Prepended(int64_t n) const {
  SLUICE_CHECK(rank_ < kMaxRank) << "rank would exceed " << kMaxRank;
  Shape out;
  out.rank_ = rank_ + 1;
  out.dims_[0] = n;
  std::copy(dims_.begin(), dims_.begin() + rank_, out.dims_.begin() + 1);
  return out;
}

std::string Shape::ToString() const {
  std::string out = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims_[i]);
  }
  return out + "]";
}

PartialShape::PartialShape(std::initializer_list<int64_t> dims)
    : PartialShape(std::span<const int64_t>(dims.begin(), dims.size())) {}

PartialShape::PartialShape(std::span<const int64_t> dims) : shape_(dims) {}

PartialShape::PartialShape(const Shape& shape) : shape_(shape) {}

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  return std::none_of(dims().begin(), dims().end(), [](int64_t d) { return d < 0; });
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (rank() != other.rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    if (dim(i) >= 0 && other.dim(i) >= 0 && dim(i) != other.dim(i)) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(std::span<const int64_t> dims) const {
  if (!known_rank_) return true;
  if (static_cast<size_t>(rank()) != dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dim(static_cast<int>(i)) >= 0 && dim(static_cast<int>(i)) != dims[i]) return false;
  }
  return true;
}

PartialShape PartialShape::MostSpecificCommon(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_ || rank() != other.rank()) return UnknownRank();
  PartialShape out = *this;
  for (int i = 0; i < rank(); ++i) {
    if (dim(i) != other.dim(i)) out.shape_.set_dim(i, kUnknownDim);
  }
  return out;
}

PartialShape PartialShape::Prepended(int64_t n) const {
  if (!known_rank_) return UnknownRank();
  return PartialShape(shape_.Prepended(n));
}

PartialShape PartialShape::WithoutFirstDim() const {
  if (!known_rank_) return UnknownRank();
  return PartialShape(shape_.WithoutFirstDim());
}

std::string PartialShape::ToString() const {
  if (!known_rank_) return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < rank(); ++i) {
    if (i > 0) out += ", ";
    out += dim(i) < 0 ? "?" : std::to_string(dim(i));
  }
  return out + "]";
}

bool operator==(const PartialShape& a, const PartialShape& b) {
  if (a.known_rank_ != b.known_rank_) return false;
  return !a.known_rank_ || a.shape_ == b.shape_;
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) { return out << shape.ToString(); }
std::ostream& operator<<(std::ostream& out, const PartialShape& shape) {
  return out << shape.ToString();
}

}  // namespace sluice
