// Fuzzes the pipeline-spec parsers and builder (dataset/pipeline_spec_io.h)
// and the graphs they build: the first byte selects the format (even: text,
// odd: binary), the rest is the spec. A spec that parses and builds is
// described, written back as a spec, and iterated for up to 64 elements
// under a small CPU and RAM budget, saving and restoring its position
// halfway. Nothing may crash, hang or trip a sanitizer; errors are fine.
//
// The harness leaves out what other targets or other bounds own: specs that
// name files (every field marked `file_access`: tfrecord, list_files, load,
// snapshot, vocabulary files; a TFRECORD element_source), and numbers
// beyond kMaxNumber (element counts, sizes and parallelism), so that a run
// explores the graph rather than waiting on a legitimately huge one.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace {

using namespace sluice;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr int64_t kMaxNumber = 1024;
constexpr int kMaxElements = 64;

bool NumberInBounds(double value) { return std::isfinite(value) && std::fabs(value) <= kMaxNumber; }

// Whether every number in `message` and the messages in it lies within
// kMaxNumber and no field names a file; walked on a stack of our own.
bool WithinHarnessBounds(const Message& root) {
  std::vector<const Message*> pending = {&root};
  while (!pending.empty()) {
    const Message& message = *pending.back();
    pending.pop_back();
    if (const auto* source = dynamic_cast<const spec::ElementSource*>(&message);
        source != nullptr && source->kind() == spec::ElementSource::TFRECORD) {
      return false;  // reads the files its elements name
    }
    const Reflection& reflection = *message.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    reflection.ListFields(message, &fields);
    for (const FieldDescriptor* field : fields) {
      const int count = field->is_repeated() ? reflection.FieldSize(message, field) : 1;
      for (int i = 0; i < count; ++i) {
        const bool repeated = field->is_repeated();
        switch (field->cpp_type()) {
          case FieldDescriptor::CPPTYPE_MESSAGE:
            pending.push_back(repeated ? &reflection.GetRepeatedMessage(message, field, i)
                                       : &reflection.GetMessage(message, field));
            break;
          case FieldDescriptor::CPPTYPE_INT64:
            if (!NumberInBounds(static_cast<double>(repeated ? reflection.GetRepeatedInt64(message, field, i)
                                                             : reflection.GetInt64(message, field)))) {
              return false;
            }
            break;
          case FieldDescriptor::CPPTYPE_STRING:
            // A field that names a file, to read, write or load.
            if (field->options().GetExtension(spec::file_access) != spec::FILE_ACCESS_NONE) return false;
            break;
          case FieldDescriptor::CPPTYPE_UINT64:
            // Seeds: any value.
            break;
          case FieldDescriptor::CPPTYPE_DOUBLE:
            if (!NumberInBounds(repeated ? reflection.GetRepeatedDouble(message, field, i)
                                         : reflection.GetDouble(message, field))) {
              return false;
            }
            break;
          default: break;
        }
      }
    }
  }
  return true;
}

// Up to `count` elements of `iterator`; false at the end of the sequence.
bool Pull(Iterator& iterator, int count) {
  for (int i = 0; i < count; ++i) {
    Result<std::optional<Element>> next = iterator.GetNext();
    if (next.ok() && !next->has_value()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  Result<spec::Pipeline> spec = (data[0] & 1) != 0 ? ParseSpecBinary(bytes) : ParseSpecText(bytes);
  if (!spec.ok() || !WithinHarnessBounds(*spec)) return 0;
  Result<DatasetPtr> dataset = DatasetFromSpec(*spec);
  if (!dataset.ok()) return 0;
  (void)DescribeGraph(**dataset);
  (void)DatasetToSpec(**dataset);

  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.cpu_budget = 1, .ram_budget_bytes = 64 << 20});
  std::unique_ptr<Iterator> iterator = (*dataset)->MakeIterator(ctx);
  if (!Pull(*iterator, kMaxElements / 2)) return 0;
  Result<std::string> state = SaveIteratorState(*iterator);
  iterator.reset();
  if (!state.ok()) return 0;
  IteratorContext resumed_ctx;
  resumed_ctx.runtime = ctx.runtime;
  std::unique_ptr<Iterator> resumed = (*dataset)->MakeIterator(resumed_ctx);
  if (RestoreIteratorState(*resumed, *state).ok()) Pull(*resumed, kMaxElements / 2);
  return 0;
}
