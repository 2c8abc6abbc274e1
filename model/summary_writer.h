// SummaryWriter: writes training curves (scalars such as loss and accuracy
// per step) as a TensorBoard events file, so `tensorboard --logdir` shows
// them.
//
// The file is "<logdir>/events.out.tfevents.<unix seconds>.<hostname>.<pid>.<n>"
// (n counts the writers the process opened), as TensorFlow names it, so
// that writers of several processes and runs share a logdir; it is a
// TFRecord file (tfrecord/record_writer.h) of
// serialized tensorflow.Event protos (model/event.proto): first an event
// with file_version "brain.Event:2" and the integer second of creation as
// wall_time, then one event per Scalar() with a one-value Summary
// (tag, simple_value).
// Thread safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/status.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {

class SummaryWriter {
 public:
  // Creates `logdir` if needed and a new events file in it. AlreadyExists if
  // a file of that name exists.
  static Result<std::unique_ptr<SummaryWriter>> Open(const std::string& logdir);

  // Appends one scalar at `step`, timestamped now. TensorBoard stores
  // float32: `value` is rounded to it.
  Status Scalar(std::string_view tag, double value, int64_t step);
  // Makes every event written so far visible to TensorBoard.
  Status Flush();
  // Closes the file (the destructor does too, losing errors).
  Status Close();

  const std::string& path() const { return path_; }

 private:
  SummaryWriter(std::string path, std::unique_ptr<RecordWriter> writer)
      : path_(std::move(path)), writer_(std::move(writer)) {}

  const std::string path_;
  const std::unique_ptr<RecordWriter> writer_;
};

}  // namespace sluice
