#include "sluice/model/summary_writer.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include "sluice/model/event.pb.h"

namespace sluice {
namespace {

// Writers this process opened, for their file names.
std::atomic<int64_t> writers_opened{0};

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

double SecondsSinceEpoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Status WriteEvent(RecordWriter& writer, const tensorflow::Event& event) {
  return writer.WriteRecord(event.SerializeAsString());
}

}  // namespace

Result<std::unique_ptr<SummaryWriter>> SummaryWriter::Open(const std::string& logdir) {
  std::error_code error;
  std::filesystem::create_directories(logdir, error);
  if (error) return InternalError("Cannot create log directory ", logdir, ": ", error.message());
  const auto seconds = static_cast<int64_t>(SecondsSinceEpoch());
  const std::string path =
      (std::filesystem::path(logdir) /
       StrCat("events.out.tfevents.", seconds, ".", Hostname(), ".", ::getpid(), ".", writers_opened.fetch_add(1)))
          .string();
  if (std::filesystem::exists(path, error)) {
    return AlreadyExistsError("Events file ", path, " exists (another writer opened it)");
  }
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer, RecordWriter::Open(path));
  tensorflow::Event event;
  event.set_wall_time(static_cast<double>(seconds));
  event.set_file_version("brain.Event:2");
  SLUICE_RETURN_IF_ERROR(WriteEvent(*writer, event));
  // TensorBoard finds the file at once, as with TensorFlow's writer.
  SLUICE_RETURN_IF_ERROR(writer->Flush());
  return std::unique_ptr<SummaryWriter>(new SummaryWriter(path, std::move(writer)));
}

Status SummaryWriter::Scalar(std::string_view tag, double value, int64_t step) {
  tensorflow::Event event;
  event.set_wall_time(SecondsSinceEpoch());
  event.set_step(step);
  tensorflow::Summary::Value* summary_value = event.mutable_summary()->add_value();
  summary_value->set_tag(std::string(tag));
  summary_value->set_simple_value(static_cast<float>(value));
  return WriteEvent(*writer_, event);
}

Status SummaryWriter::Flush() { return writer_->Flush(); }

Status SummaryWriter::Close() { return writer_->Close(); }

}  // namespace sluice
