// StringRunsIterator: the FileRunsIterator of a source whose rows are one
// string each, handed out by a reader as views of its read chunks
// (text_line's LineReader, fixed_length_record's FixedLengthRecordReader):
// a run is one [k] string tensor whose buffer keeps the chunks alive, so no
// row is copied. It counts the rows and bytes of each file into the
// traversal's stats when the file is closed.
// Thread safety: an iterator is used by one thread at a time.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/dataset/file_runs_iterator.h"

namespace sluice {

// Reader: Seek(ItemPosition), position(), and the `read` method below.
template <typename Reader>
class StringRunsIterator final : public FileRunsIterator {
 public:
  // Opens a file for reading.
  using OpenFn = std::function<Result<std::unique_ptr<Reader>>(const std::string& path)>;
  // Reads up to `max` rows as views, their bytes kept alive by *owner.
  using ReadFn = Result<size_t> (Reader::*)(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner);
  // The stats counters of rows and bytes ("text_line/lines", "text_line/bytes").
  struct Counters {
    std::string rows;
    std::string bytes;
  };

  StringRunsIterator(std::vector<std::string> files, OpenFn open, ReadFn read, Counters counters,
                     std::shared_ptr<StatsCounters> stats)
      : FileRunsIterator(std::move(files), Spec()),
        open_(std::move(open)),
        read_(read),
        counters_(std::move(counters)),
        stats_(std::move(stats)) {}
  ~StringRunsIterator() override { CloseFile(); }

  // A scalar string per row.
  static const ElementSpec& Spec() {
    static const ElementSpec spec{{"", DType::kString, Shape{}}};
    return spec;
  }

 protected:
  Status OpenFile(const std::string& path) override {
    SLUICE_ASSIGN_OR_RETURN(reader_, open_(path));
    return OkStatus();
  }
  bool file_open() const override { return reader_ != nullptr; }
  void CloseFile() override {
    if (rows_ > 0) stats_->Add(counters_.rows, std::exchange(rows_, 0));
    if (bytes_ > 0) stats_->Add(counters_.bytes, std::exchange(bytes_, 0));
    reader_.reset();
  }
  Element NewRun(int64_t rows) override {
    kept_ = nullptr;
    return Element{Tensor::Allocate(DType::kString, Shape{rows})};
  }
  Result<int64_t> ReadRows(Element& run, int64_t at, int64_t max_rows) override {
    std::array<std::string_view, kReadAhead> views;
    SLUICE_ASSIGN_OR_RETURN(
        size_t n, ((*reader_).*read_)(views.data(), static_cast<size_t>(std::min(max_rows, kReadAhead)), &owner_));
    TString* out = run[0].mutable_data<TString>() + at;
    for (size_t i = 0; i < n; ++i) {
      out[i] = TString::View(views[i]);
      bytes_ += static_cast<int64_t>(views[i].size());
    }
    rows_ += static_cast<int64_t>(n);
    if (n > 0 && owner_.get() != kept_) {
      run[0].AddBacking(owner_);
      kept_ = owner_.get();
    }
    return static_cast<int64_t>(n);
  }
  ItemPosition position() const override { return reader_->position(); }
  Status Reopen(const std::string& path, const ItemPosition& position) override {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Reader> file, open_(path));
    SLUICE_RETURN_IF_ERROR(file->Seek(position));
    reader_ = std::move(file);
    return OkStatus();
  }

 private:
  const OpenFn open_;
  const ReadFn read_;
  const Counters counters_;
  const std::shared_ptr<StatsCounters> stats_;
  std::unique_ptr<Reader> reader_;
  std::shared_ptr<const Buffer> owner_;  // of the rows read last
  const Buffer* kept_ = nullptr;         // the backing the run added last
  int64_t rows_ = 0;                     // of the open file, not yet in stats_
  int64_t bytes_ = 0;
};

}  // namespace sluice
