// Shape: the fully known dimensions of a Tensor. PartialShape: what is known
// of a shape before data flows (unknown dims are -1, or the rank itself is
// unknown), as carried by an ElementSpec.
// Dimensions are stored inline (rank <= kMaxRank): copying a shape never
// allocates, which matters on the per-element path.
// Thread safety: plain values.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "sluice/core/status.h"

namespace sluice {

inline constexpr int kMaxRank = 8;
inline constexpr int64_t kUnknownDim = -1;

class Shape {
 public:
  Shape() = default;  // a scalar
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(std::span<const int64_t> dims);
  // Validating constructor for user input: rank <= kMaxRank, dims >= 0.
  static Result<Shape> FromDims(std::span<const int64_t> dims);

  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  void set_dim(int i, int64_t value) { dims_[i] = value; }
  std::span<const int64_t> dims() const { return {dims_.data(), static_cast<size_t>(rank_)}; }
  int64_t NumElements() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }
  // NumElements() for a shape from user input or data, whose product may not
  // fit: InvalidArgument naming the shape when it overflows int64.
  // REQUIRES: dims >= 0.
  Result<int64_t> CheckedNumElements() const;

  // [n] + this, and this without its first dimension. REQUIRES: rank fits / rank >= 1.
  Shape Prepended(int64_t n) const;
  // Inline: the per-row paths (Tensor::Row, AssignRow) take a row shape per element.
  Shape WithoutFirstDim() const {
    Shape out;
    out.AssignWithoutFirstDim(*this);
    return out;
  }
  // Makes this `shape` without its first dimension, in place: for a loop
  // that re-points one tensor at row after row (Tensor::AssignRow), where a
  // temporary shape, written piecewise and read back whole, would cost a
  // stalled load per row. `shape` may be this one.
  void AssignWithoutFirstDim(const Shape& shape) {
    SLUICE_CHECK(shape.rank_ >= 1) << "a scalar has no first dimension";
    rank_ = shape.rank_ - 1;
    for (int i = 0; i + 1 < kMaxRank; ++i) dims_[i] = shape.dims_[i + 1];
    dims_[kMaxRank - 1] = 0;
  }

  // Whether this is `shape` without its first dimension: a row loop tests
  // it to leave an unchanged shape unwritten. REQUIRES: shape.rank() >= 1.
  bool IsWithoutFirstDimOf(const Shape& shape) const {
    if (rank_ != shape.rank_ - 1) return false;
    for (int i = 0; i < rank_; ++i) {
      if (dims_[i] != shape.dims_[i + 1]) return false;
    }
    return true;
  }

  std::string ToString() const;  // "[2, 3]", "[]" for a scalar
  // Inline, dim by dim: shapes are compared once per element on the
  // per-element paths, and most have rank 0 or 1.
  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i) {
      if (a.dims_[i] != b.dims_[i]) return false;
    }
    return true;
  }

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

class PartialShape {
 public:
  PartialShape() = default;  // a scalar, like Shape(); see UnknownRank()
  PartialShape(std::initializer_list<int64_t> dims);  // -1 marks an unknown dim
  explicit PartialShape(std::span<const int64_t> dims);
  PartialShape(const Shape& shape);  // NOLINT: a known shape is a partial shape
  static PartialShape UnknownRank() {
    PartialShape shape;
    shape.known_rank_ = false;
    return shape;
  }

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? shape_.rank() : -1; }
  int64_t dim(int i) const { return shape_.dim(i); }
  std::span<const int64_t> dims() const { return shape_.dims(); }
  bool IsFullyDefined() const;
  // REQUIRES: IsFullyDefined().
  Shape ToShape() const { return shape_; }

  // True when some shape could match both (unknown rank or dims match anything).
  bool IsCompatibleWith(const PartialShape& other) const;
  // Against known dims (a Shape's, or a run's without its leading dim).
  bool IsCompatibleWith(std::span<const int64_t> dims) const;
  bool IsCompatibleWith(const Shape& shape) const { return IsCompatibleWith(shape.dims()); }
  // The most specific shape that both this and other are instances of:
  // dims that differ become unknown; ranks that differ give unknown rank.
  PartialShape MostSpecificCommon(const PartialShape& other) const;
  // [n] + this (n may be kUnknownDim); unknown rank stays unknown.
  PartialShape Prepended(int64_t n) const;
  // This without its first dim; unknown rank stays unknown. REQUIRES: rank != 0.
  PartialShape WithoutFirstDim() const;

  std::string ToString() const;  // "[?, 3]", "<unknown>"
  friend bool operator==(const PartialShape& a, const PartialShape& b);

 private:
  Shape shape_;  // dims; kUnknownDim where unknown
  bool known_rank_ = true;
};

std::ostream& operator<<(std::ostream& out, const Shape& shape);
std::ostream& operator<<(std::ostream& out, const PartialShape& shape);

}  // namespace sluice
