// Fuzzes the fast tf.train.Example and SequenceExample parsers
// (tfrecord/example_parser.h, sequence_example_parser.h) on arbitrary bytes,
// as one record and as a batch of pieces, against protobuf's own parser:
// they must never crash, hang or trip a sanitizer, and when both protobuf
// and the fast parser accept an Example, the values of a requested feature
// that protobuf sees must be the ones the fast parser returns.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/example_parser.h"
#include "sluice/tfrecord/sequence_example_parser.h"

namespace {

using namespace sluice;

ExampleSchema MakeSchema() {
  return *ExampleSchema::Make({
      {.key = "label", .dtype = DType::kInt64, .shape = Shape{}, .default_value = Tensor::Scalar<int64_t>(-1)},
      {.key = "pair", .dtype = DType::kFloat32, .shape = Shape{2}, .default_value = Tensor::Scalar<float>(0)},
      {.key = "ids", .dtype = DType::kInt64, .layout = FeatureLayout::kVarLen},
      {.key = "text", .dtype = DType::kString, .layout = FeatureLayout::kVarLenPadded},
      {.key = "w", .dtype = DType::kFloat32, .layout = FeatureLayout::kVarLen},
  });
}

SequenceExampleSchema MakeSequenceSchema() {
  return *SequenceExampleSchema::Make(
      {{.key = "label", .dtype = DType::kInt64, .layout = FeatureLayout::kVarLen}},
      {{.key = "frames", .dtype = DType::kFloat32, .layout = StepLayout::kFixedLen, .shape = Shape{2}},
       {.key = "tokens", .dtype = DType::kString, .layout = StepLayout::kVarLen}});
}

// The int64 "ids" feature as protobuf sees it.
std::vector<int64_t> ReferenceIds(const tensorflow::Example& example) {
  auto it = example.features().feature().find("ids");
  if (it == example.features().feature().end() || !it->second.has_int64_list()) return {};
  return {it->second.int64_list().value().begin(), it->second.int64_list().value().end()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every invalid UTF-8 key (proto3 string map keys) it sees.
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  static const ExampleParser parser(MakeSchema());
  static const SequenceExampleParser sequence_parser(MakeSequenceSchema());
  const std::string_view record(reinterpret_cast<const char*>(data), size);

  Result<Element> single = parser.ParseSingle(record);
  tensorflow::Example example;
  if (single.ok() && example.ParseFromString(std::string(record))) {
    const std::vector<int64_t> ids = ReferenceIds(example);
    const Tensor& parsed = (*single)[2];
    if (parsed.NumElements() != static_cast<int64_t>(ids.size()) ||
        (!ids.empty() && std::memcmp(parsed.data<int64_t>(), ids.data(), ids.size() * 8) != 0)) {
      std::abort();  // the fast parser disagrees with protobuf
    }
  }
  // The same bytes cut into up to four records, as a batch.
  std::vector<std::string_view> pieces;
  for (size_t begin = 0, i = 0; i < 4; ++i) {
    const size_t end = i == 3 ? size : std::min(size, begin + (size >> (i + 1)));
    pieces.push_back(record.substr(begin, end - begin));
    begin = end;
  }
  Result<Element> batch = parser.ParseBatch(pieces);
  // From a string tensor, bytes features come out as views of its records:
  // the same values, valid after the tensor's last other handle is gone.
  Result<Element> viewed = parser.Parse(Tensor::FromVector(std::vector<std::string>(pieces.begin(), pieces.end())));
  if (batch.ok() != viewed.ok() || (batch.ok() && !batch->Equals(*viewed))) std::abort();
  (void)sequence_parser.ParseSingle(record);
  (void)sequence_parser.ParseBatch(pieces);
  return 0;
}
