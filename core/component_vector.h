// ComponentVector: the tensors of an Element, a vector that holds up to
// kInlineCapacity of them in itself (most elements have one or two
// components: a record; features and a label), so that making an element
// allocates nothing. More go to HostObjectAllocator's memory
// (core/aligned_memory.h): elements are made on producer threads and freed
// on consumers'.
//
// Moving a vector relocates its tensors: their bytes are copied and the
// source forgets them without running their destructors. A Tensor is
// trivially relocatable: its members (a shape of integers, a shared_ptr's
// two pointers, offsets) hold no pointer into the tensor itself, so copied
// bytes are the same tensor at its new address. Elements are passed by
// value from op to op and into and out of every C++ function a map applies,
// so a move that copies the inline slots' bytes at a size the compiler
// unrolls, instead of moving and then destroying each tensor, is most of
// what passing an element costs.
// Thread safety: a plain value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

#include "sluice/core/aligned_memory.h"
#include "sluice/core/tensor.h"

namespace sluice {

class ComponentVector {
 public:
  using value_type = Tensor;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = Tensor&;
  using const_reference = const Tensor&;
  using iterator = Tensor*;
  using const_iterator = const Tensor*;
  static constexpr size_t kInlineCapacity = 2;

  ComponentVector() noexcept = default;
  ComponentVector(std::initializer_list<Tensor> tensors) { Append(tensors.begin(), tensors.end()); }
  template <std::input_iterator It>
  ComponentVector(It first, It last) {
    Append(first, last);
  }
  ComponentVector(const ComponentVector& other) { Append(other.begin(), other.end()); }
  ComponentVector(ComponentVector&& other) noexcept { TakeFrom(other); }
  ComponentVector& operator=(const ComponentVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  ComponentVector& operator=(ComponentVector&& other) noexcept {
    if (this != &other) {
      if (!IsEmptyInline()) Release();
      TakeFrom(other);
    }
    return *this;
  }
  // Elements are moved from more often than not before they die, so an
  // empty inline vector is let go of without a call.
  ~ComponentVector() {
    if (!IsEmptyInline()) Release();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  Tensor* data() { return data_; }
  const Tensor* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  Tensor& operator[](size_t i) { return data_[i]; }
  const Tensor& operator[](size_t i) const { return data_[i]; }
  Tensor& back() { return data_[size_ - 1]; }
  const Tensor& back() const { return data_[size_ - 1]; }

  void reserve(size_t capacity) {
    if (capacity > capacity_) MoveTo(capacity);
  }
  // Shrinking destroys the last tensors; growing appends invalid ones.
  void resize(size_t size) {
    while (size_ > size) data_[--size_].~Tensor();
    reserve(size);
    while (size_ < size) new (data_ + size_++) Tensor();
  }
  void clear() { resize(0); }
  template <typename... Args>
  Tensor& emplace_back(Args&&... args) {
    if (size_ == capacity_) [[unlikely]] {
      // Made first: the arguments may refer to a tensor of this vector.
      Tensor tensor(std::forward<Args>(args)...);
      MoveTo(capacity_ * 2);
      return *new (data_ + size_++) Tensor(std::move(tensor));
    }
    return *new (data_ + size_++) Tensor(std::forward<Args>(args)...);
  }
  void push_back(const Tensor& tensor) { emplace_back(tensor); }
  void push_back(Tensor&& tensor) { emplace_back(std::move(tensor)); }
  // Appends run.Row(i), made in its slot: no temporary tensor is moved
  // and destroyed, which is most of the cost of a per-element row.
  void push_back_row(const Tensor& run, int64_t i) {
    if (size_ == capacity_) [[unlikely]] {
      push_back(run.Row(i));
      return;
    }
    new (data_ + size_) Tensor(run.Row(i));
    ++size_;
  }
  // Inserts before `position`; returns an iterator to the first inserted.
  iterator insert(const_iterator position, Tensor tensor) {
    const size_t index = Index(position);
    emplace_back(std::move(tensor));
    std::rotate(begin() + index, end() - 1, end());
    return begin() + index;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator position, It first, It last) {
    const size_t index = Index(position);
    // Copied out first: the range may be part of this vector.
    ComponentVector inserted(first, last);
    const size_t old_size = size_;
    reserve(size_ + inserted.size());
    for (Tensor& tensor : inserted) emplace_back(std::move(tensor));
    std::rotate(begin() + index, begin() + old_size, end());
    return begin() + index;
  }
  template <std::input_iterator It>
  void assign(It first, It last) {
    *this = ComponentVector(first, last);
  }

 private:
  Tensor* inline_data() { return reinterpret_cast<Tensor*>(inline_); }
  bool is_inline() const { return reinterpret_cast<const unsigned char*>(data_) == inline_; }
  bool IsEmptyInline() const { return size_ == 0 && is_inline(); }
  size_t Index(const_iterator position) const { return static_cast<size_t>(position - data_); }

  template <typename It>
  void Append(It first, It last) {
    if constexpr (std::forward_iterator<It>) reserve(size_ + static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) emplace_back(*first);
  }
  // Relocates the tensors into `capacity` slots of fresh memory.
  void MoveTo(size_t capacity) {
    if (capacity > kMaxCapacity) throw std::bad_alloc();
    void* memory = AlignedAllocate(capacity * sizeof(Tensor), alignof(Tensor) < 16 ? 16 : alignof(Tensor));
    if (memory == nullptr) throw std::bad_alloc();
    Tensor* moved = static_cast<Tensor*>(memory);
    for (size_t i = 0; i < size_; ++i) new (moved + i) Tensor(std::move(data_[i]));
    if (!is_inline()) AlignedFree(data_);
    data_ = moved;
    capacity_ = capacity;
  }
  // Takes other's tensors, leaving it empty. REQUIRES: this holds none.
  void TakeFrom(ComponentVector& other) noexcept {
    if (other.is_inline()) {
      // All the slots, used or not: a fixed size is a few vector moves.
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_data();
      other.capacity_ = kInlineCapacity;
    }
    size_ = std::exchange(other.size_, 0);
  }
  // Destroys the tensors and frees heap memory, leaving this empty and inline.
  void Release() {
    for (size_t i = 0; i < size_; ++i) data_[i].~Tensor();
    size_ = 0;
    if (!is_inline()) {
      AlignedFree(data_);
      data_ = inline_data();
      capacity_ = kInlineCapacity;
    }
  }

  static_assert(std::is_trivially_copyable_v<Shape>, "TakeFrom relocates tensors by copying their bytes");
  static constexpr size_t kMaxCapacity = (size_t{1} << 40) / sizeof(Tensor);

  Tensor* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = kInlineCapacity;
  alignas(Tensor) unsigned char inline_[kInlineCapacity * sizeof(Tensor)];
};

}  // namespace sluice
