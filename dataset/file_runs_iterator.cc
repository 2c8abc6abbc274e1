#include "sluice/dataset/file_runs_iterator.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace sluice {

Result<std::optional<Element>> FileRunsIterator::GetNextInternal() {
  if (next_row_ == read_ahead_rows_) {
    SetReadAhead(Element(), 0);  // let go of the last run's chunks before reading more
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, ReadRun(kReadAhead));
    if (!run) return std::nullopt;
    const int64_t rows = (*run)[0].dim(0);
    SetReadAhead(std::move(*run), rows);
  }
  Result<std::optional<Element>> next(std::in_place, std::in_place);
  for (const Tensor& column : read_ahead_.components) (*next)->components.push_back_row(column, next_row_);
  ++next_row_;
  return next;
}

Result<std::optional<Element>> FileRunsIterator::GetNextRunInternal(int64_t max_rows) {
  if (next_row_ == read_ahead_rows_) return ReadRun(max_rows);
  const int64_t end = std::min(read_ahead_rows_, next_row_ + max_rows);
  Element rows;
  for (const Tensor& column : read_ahead_.components) rows.components.push_back(column.Slice(next_row_, end));
  next_row_ = end;
  if (next_row_ == read_ahead_rows_) SetReadAhead(Element(), 0);
  return rows;
}

Result<std::optional<Element>> FileRunsIterator::ReadRun(int64_t max_rows) {
  if (!pending_.ok()) return std::exchange(pending_, OkStatus());
  Element run = NewRun(max_rows);
  int64_t count = 0;
  while (count < max_rows) {
    Result<int64_t> rows = 0;
    if (!file_open()) {
      if (next_file_ == files_.size()) break;
      if (Status opened = OpenFile(files_[next_file_++]); !opened.ok()) rows = opened;
    }
    if (rows.ok()) rows = ReadRows(run, count, max_rows - count);
    if (!rows.ok()) {
      if (count == 0) return rows.status();
      pending_ = rows.status();
      break;
    }
    if (*rows == 0) {
      CloseFile();
      continue;
    }
    count += *rows;
  }
  if (count == 0) return std::nullopt;
  if (count < max_rows) {
    for (Tensor& column : run.components) column = column.Slice(0, count);
  }
  return run;
}

void FileRunsIterator::SetReadAhead(Element run, int64_t rows) {
  read_ahead_ = std::move(run);
  read_ahead_rows_ = rows;
  next_row_ = 0;
}

Status FileRunsIterator::SaveInternal(IteratorStateWriter& writer) {
  writer.WriteInt("next_file", static_cast<int64_t>(next_file_));
  // Rows read ahead come before the reader's position, and before pending_.
  writer.WriteRows("read_ahead", read_ahead_, next_row_, read_ahead_rows_);
  writer.WriteStatus("pending", pending_);
  writer.WriteBool("open", file_open());
  if (!file_open()) return OkStatus();
  const ItemPosition at = position();
  writer.WriteInt("offset", static_cast<int64_t>(at.offset));
  writer.WriteInt("next_item", at.next_item);
  return OkStatus();
}

Status FileRunsIterator::RestoreInternal(IteratorStateReader& reader) {
  CloseFile();
  SLUICE_ASSIGN_OR_RETURN(int64_t next_file, reader.ReadInt("next_file", 0, static_cast<int64_t>(files_.size())));
  next_file_ = static_cast<size_t>(next_file);
  int64_t rows = 0;
  SLUICE_ASSIGN_OR_RETURN(Element read_ahead, reader.ReadRows("read_ahead", spec_, &rows));
  SetReadAhead(std::move(read_ahead), rows);
  SLUICE_RETURN_IF_ERROR(reader.ReadStatus("pending", &pending_));
  SLUICE_ASSIGN_OR_RETURN(bool open, reader.ReadBool("open"));
  if (!open) return OkStatus();
  if (next_file_ == 0) return DataLossError("iterator state: an open file before the first");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ItemPosition at;
  SLUICE_ASSIGN_OR_RETURN(int64_t offset, reader.ReadInt("offset", 0, kMax));
  SLUICE_ASSIGN_OR_RETURN(at.next_item, reader.ReadInt("next_item", 0, kMax));
  at.offset = static_cast<uint64_t>(offset);
  return Reopen(files_[next_file_ - 1], at);
}

}  // namespace sluice
