// Iterator checkpointing: saving a traversal's position so that a fresh
// iterator of the same dataset, restored from it, yields exactly the
// elements the saved one would have yielded next (tf.data's explicit
// checkpointing).
//
//   SLUICE_ASSIGN_OR_RETURN(std::string state, SaveIteratorState(*it));
//   ... store `state` in the training checkpoint; later, maybe in another process:
//   auto resumed = dataset->MakeIterator();
//   SLUICE_RETURN_IF_ERROR(RestoreIteratorState(*resumed, state));
//
// The state is a set of named entries (int64, byte string, tensor). Each
// iterator writes its own under the key prefix its parent gives it, and
// saves its inputs recursively through WriteIterator / ReadIterator. Buffers
// (shuffle, prefetch) are stored element by element, so a state can be as
// large as those buffers.
//
// The root iterator (Dataset::MakeIterator) also stores the graph's
// description (DescribeGraph); restoring into an iterator of a different
// graph fails with InvalidArgument naming the first line that differs.
// Damaged bytes or entries fail with DataLoss; nothing aborts.
//
// Functions are assumed stateless: a map, filter or interleave function
// (a built-in or a C++ lambda) is called again after a restore and must give
// the same results. Ops that cannot restore their position (cache) fail to
// save with Unimplemented naming the op.
//
// Thread safety: a writer or reader is used by one thread at a time, the
// one that uses the iterator.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/element.h"

namespace sluice {

class Iterator;

namespace state {
class Entry;
class IteratorState;
}  // namespace state

// A take/skip/repeat count as the bound of a restored counter: -1
// (unbounded) becomes the largest int64.
inline int64_t CountOrMax(int64_t count) { return count < 0 ? std::numeric_limits<int64_t>::max() : count; }

// The format version written by SaveIteratorState; others are refused.
inline constexpr int kIteratorStateVersion = 1;

// Collects entries while an iterator tree saves itself.
class IteratorStateWriter {
 public:
  IteratorStateWriter();
  ~IteratorStateWriter();

  void WriteInt(std::string_view key, int64_t value);
  void WriteBool(std::string_view key, bool value) { WriteInt(key, value ? 1 : 0); }
  void WriteString(std::string_view key, std::string value);
  void WriteTensor(std::string_view key, const Tensor& tensor);
  // key/size, then each component as key/0, key/1, ...
  void WriteElement(std::string_view key, const Element& element);
  // Rows [begin, end) of a run or batch (every component sliced alike), for
  // ops that hold a partly consumed one: key/rows, then key/element if any.
  void WriteRows(std::string_view key, const Element& element, int64_t begin, int64_t end);
  // key/code and key/message.
  void WriteStatus(std::string_view key, const Status& status);
  // `iterator`'s own entries, under key/.
  Status WriteIterator(std::string_view key, Iterator& iterator);

  // The entries written so far, as an IteratorState message.
  std::string Serialize() const;

 private:
  state::Entry* Add(std::string_view key);

  std::unique_ptr<state::IteratorState> state_;
  std::string prefix_;  // of the iterator being saved: "" or "input/slots/2/"
};

// Reads the entries of a serialized state while an iterator tree restores
// itself. A missing entry, or one of the wrong kind or out of range, is a
// DataLoss error naming its key.
class IteratorStateReader {
 public:
  // DataLoss when `bytes` is not an IteratorState of this version.
  static Result<IteratorStateReader> Parse(std::string_view bytes);

  IteratorStateReader(IteratorStateReader&&) noexcept;
  ~IteratorStateReader();

  bool Contains(std::string_view key) const;
  Result<int64_t> ReadInt(std::string_view key) const;
  // An int that must lie in [min, max] (an index, a count).
  Result<int64_t> ReadInt(std::string_view key, int64_t min, int64_t max) const;
  Result<bool> ReadBool(std::string_view key) const;
  Result<std::string> ReadString(std::string_view key) const;
  Result<Tensor> ReadTensor(std::string_view key) const;
  // An element that must match `spec`, so that a damaged state can't send
  // ill-typed elements downstream.
  Result<Element> ReadElement(std::string_view key, const ElementSpec& spec) const;
  // Rows saved by WriteRows, a run of elements of `spec`; *rows is their
  // count (0: an empty Element).
  Result<Element> ReadRows(std::string_view key, const ElementSpec& spec, int64_t* rows) const;
  // The saved status into *status (a Result can't hold a Status).
  Status ReadStatus(std::string_view key, Status* status) const;
  // Restores `iterator` from the entries under key/.
  Status ReadIterator(std::string_view key, Iterator& iterator);

 private:
  explicit IteratorStateReader(std::unique_ptr<state::IteratorState> state);
  Result<Element> ReadElement(std::string_view key, const ElementSpec& spec, bool is_run) const;
  // The entry at prefix_ + key, or DataLoss.
  Result<const state::Entry*> Find(std::string_view key) const;
  Status Corrupt(std::string_view key, std::string_view what) const;

  std::unique_ptr<state::IteratorState> state_;
  std::map<std::string, const state::Entry*, std::less<>> entries_;  // into state_
  std::string prefix_;
};

// The position of `iterator` (usually one made by Dataset::MakeIterator) as
// bytes, for a model checkpoint to hold as one blob. It may briefly pause
// the iterator's background workers. Unimplemented when an op in the tree
// cannot save its position.
Result<std::string> SaveIteratorState(Iterator& iterator);

// Moves `iterator` to the position saved in `bytes`.
// REQUIRES: `iterator` is fresh (no GetNext yet) and made from the same
// graph as the saved one.
Status RestoreIteratorState(Iterator& iterator, std::string_view bytes);

}  // namespace sluice
