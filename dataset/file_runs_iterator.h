// FileRunsIterator: the iterator of a file source that reads rows in runs
// (text_line, csv): its files one after another, each row one element. A
// run is one element of [k] components (what batch takes whole through
// GetNextRun); GetNext reads kReadAhead rows the same way and returns them
// one by one. An error met after some rows of a run ends the run and is
// returned by the next call, so errors keep their place among the rows. A
// file that can't be opened is an error for that element, and the next
// file follows.
//
// A subclass opens a file, reads rows of it into a run, and reopens a file
// at a position; this class does the rest, saving the index of the next
// file, the rows read ahead, the pending error and the open file's position
// (a restore reopens the file there).
// Thread safety: an iterator is used by one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/tfrecord/chunked_input.h"

namespace sluice {

class FileRunsIterator : public Iterator {
 public:
  static constexpr int64_t kReadAhead = 64;  // rows read at once by GetNext

 protected:
  FileRunsIterator(std::vector<std::string> files, ElementSpec spec)
      : files_(std::move(files)), spec_(std::move(spec)) {}

  // Opens `path` as the open file. An error may leave it open (a CSV file
  // whose header is damaged): its rows are read next.
  virtual Status OpenFile(const std::string& path) = 0;
  virtual bool file_open() const = 0;
  // Lets go of the open file, if any. Subclasses call it from their
  // destructors too.
  virtual void CloseFile() = 0;
  // A run of `rows` rows of the element spec to read into.
  virtual Element NewRun(int64_t rows) = 0;
  // Reads rows of the open file into rows [at, at + n) of `run`, 1 <= n <=
  // max_rows; 0 at the end of the file. An error comes with no rows.
  virtual Result<int64_t> ReadRows(Element& run, int64_t at, int64_t max_rows) = 0;
  // The open file's position, and `path` opened again at a saved one.
  virtual ItemPosition position() const = 0;
  virtual Status Reopen(const std::string& path, const ItemPosition& position) = 0;

  Result<std::optional<Element>> GetNextInternal() final;
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) final;
  Status SaveInternal(IteratorStateWriter& writer) final;
  Status RestoreInternal(IteratorStateReader& reader) final;

 private:
  // Up to max_rows rows as one run, k >= 1; nullopt at the end.
  Result<std::optional<Element>> ReadRun(int64_t max_rows);
  void SetReadAhead(Element run, int64_t rows);

  const std::vector<std::string> files_;
  const ElementSpec spec_;
  size_t next_file_ = 0;
  Element read_ahead_;  // rows for GetNext
  int64_t read_ahead_rows_ = 0;
  int64_t next_row_ = 0;  // of read_ahead_, the next to return
  Status pending_;        // an error that ended the last run
};

}  // namespace sluice
