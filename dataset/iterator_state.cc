#include "sluice/dataset/iterator_state.h"

#include <cstring>
#include <limits>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/iterator_state.pb.h"

namespace sluice {
namespace {

// Runs `step` (an input iterator saving or restoring itself) with key/
// appended to `prefix`.
template <typename Step>
Status Nested(std::string& prefix, std::string_view key, const Step& step) {
  const size_t outer = prefix.size();
  prefix += StrCat(key, "/");
  Status status = step();
  prefix.resize(outer);
  return status;
}

void TensorToValue(const Tensor& tensor, state::TensorValue* out) {
  out->set_dtype(std::string(DTypeName(tensor.dtype())));
  for (int64_t d : tensor.shape().dims()) out->add_shape(d);
  if (tensor.dtype() == DType::kString) {
    const TString* values = tensor.data<TString>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out->add_strings(std::string(values[i]));
  } else {
    out->set_data(static_cast<const char*>(tensor.raw_data()), tensor.NumBytes());
  }
}

Result<Tensor> TensorFromValue(const state::TensorValue& value) {
  SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(value.dtype()));
  const std::vector<int64_t> dims(value.shape().begin(), value.shape().end());
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(dims));
  SLUICE_ASSIGN_OR_RETURN(const int64_t checked_bytes, CheckedNumBytes(dtype, shape));  // a damaged state may wrap
  if (dtype == DType::kString) {
    if (value.strings_size() != shape.NumElements()) {
      return InvalidArgumentError("a string tensor of shape ", shape, " with ", value.strings_size(), " values");
    }
    Tensor tensor = Tensor::Allocate(dtype, shape);
    TString* out = tensor.mutable_data<TString>();
    for (int i = 0; i < value.strings_size(); ++i) out[i] = value.strings(i);
    return tensor;
  }
  const auto bytes = static_cast<size_t>(checked_bytes);
  if (value.data().size() != bytes) {
    return InvalidArgumentError("a ", dtype, " tensor of shape ", shape, " needs ", bytes, " bytes, got ",
                                value.data().size());
  }
  Tensor tensor = Tensor::AllocateUninitialized(dtype, shape);
  if (bytes > 0) std::memcpy(tensor.raw_data(), value.data().data(), bytes);
  return tensor;
}

}  // namespace

IteratorStateWriter::IteratorStateWriter() : state_(std::make_unique<state::IteratorState>()) {
  state_->set_version(kIteratorStateVersion);
}
IteratorStateWriter::~IteratorStateWriter() = default;

state::Entry* IteratorStateWriter::Add(std::string_view key) {
  state::Entry* entry = state_->add_entries();
  entry->set_key(StrCat(prefix_, key));
  return entry;
}

void IteratorStateWriter::WriteInt(std::string_view key, int64_t value) { Add(key)->set_int_value(value); }
void IteratorStateWriter::WriteString(std::string_view key, std::string value) {
  Add(key)->set_string_value(std::move(value));
}
void IteratorStateWriter::WriteTensor(std::string_view key, const Tensor& tensor) {
  TensorToValue(tensor, Add(key)->mutable_tensor());
}

void IteratorStateWriter::WriteElement(std::string_view key, const Element& element) {
  WriteInt(StrCat(key, "/size"), static_cast<int64_t>(element.size()));
  for (size_t i = 0; i < element.size(); ++i) WriteTensor(StrCat(key, "/", i), element[i]);
}

void IteratorStateWriter::WriteRows(std::string_view key, const Element& element, int64_t begin, int64_t end) {
  WriteInt(StrCat(key, "/rows"), end - begin);
  if (end == begin) return;
  Element rows;
  for (const Tensor& t : element.components) rows.components.push_back(t.Slice(begin, end));
  WriteElement(StrCat(key, "/element"), rows);
}

void IteratorStateWriter::WriteStatus(std::string_view key, const Status& status) {
  WriteInt(StrCat(key, "/code"), static_cast<int64_t>(status.code()));
  WriteString(StrCat(key, "/message"), std::string(status.message()));
}

Status IteratorStateWriter::WriteIterator(std::string_view key, Iterator& iterator) {
  return Nested(prefix_, key, [&] { return iterator.Save(*this); });
}

std::string IteratorStateWriter::Serialize() const { return state_->SerializeAsString(); }

IteratorStateReader::IteratorStateReader(std::unique_ptr<state::IteratorState> state) : state_(std::move(state)) {}
IteratorStateReader::IteratorStateReader(IteratorStateReader&&) noexcept = default;
IteratorStateReader::~IteratorStateReader() = default;

Result<IteratorStateReader> IteratorStateReader::Parse(std::string_view bytes) {
  auto proto = std::make_unique<state::IteratorState>();
  if (!proto->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLossError("iterator state: cannot parse ", bytes.size(), " bytes as an IteratorState");
  }
  if (proto->version() != kIteratorStateVersion) {
    return DataLossError("iterator state: format version ", proto->version(), ", expected ", kIteratorStateVersion);
  }
  IteratorStateReader reader(std::move(proto));
  for (const state::Entry& entry : reader.state_->entries()) {
    if (!reader.entries_.emplace(entry.key(), &entry).second) {
      return DataLossError("iterator state: entry '", entry.key(), "' appears twice");
    }
  }
  return reader;
}

Status IteratorStateReader::Corrupt(std::string_view key, std::string_view what) const {
  return DataLossError("iterator state: entry '", prefix_, key, "' ", what);
}

Result<const state::Entry*> IteratorStateReader::Find(std::string_view key) const {
  auto it = entries_.find(StrCat(prefix_, key));
  if (it == entries_.end()) return Corrupt(key, "is missing");
  return it->second;
}

bool IteratorStateReader::Contains(std::string_view key) const { return entries_.contains(StrCat(prefix_, key)); }

Result<int64_t> IteratorStateReader::ReadInt(std::string_view key) const {
  SLUICE_ASSIGN_OR_RETURN(const state::Entry* entry, Find(key));
  if (entry->value_case() != state::Entry::kIntValue) return Corrupt(key, "is not an int");
  return entry->int_value();
}

Result<int64_t> IteratorStateReader::ReadInt(std::string_view key, int64_t min, int64_t max) const {
  SLUICE_ASSIGN_OR_RETURN(int64_t value, ReadInt(key));
  if (value < min || value > max) {
    return Corrupt(key, StrCat("is ", value, ", outside [", min, ", ", max, "]"));
  }
  return value;
}

Result<bool> IteratorStateReader::ReadBool(std::string_view key) const {
  SLUICE_ASSIGN_OR_RETURN(int64_t value, ReadInt(key, 0, 1));
  return value == 1;
}

Result<std::string> IteratorStateReader::ReadString(std::string_view key) const {
  SLUICE_ASSIGN_OR_RETURN(const state::Entry* entry, Find(key));
  if (entry->value_case() != state::Entry::kStringValue) return Corrupt(key, "is not a string");
  return entry->string_value();
}

Result<Tensor> IteratorStateReader::ReadTensor(std::string_view key) const {
  SLUICE_ASSIGN_OR_RETURN(const state::Entry* entry, Find(key));
  if (entry->value_case() != state::Entry::kTensor) return Corrupt(key, "is not a tensor");
  Result<Tensor> tensor = TensorFromValue(entry->tensor());
  if (!tensor.ok()) return Corrupt(key, StrCat("is a damaged tensor: ", tensor.status().message()));
  return tensor;
}

Result<Element> IteratorStateReader::ReadElement(std::string_view key, const ElementSpec& spec) const {
  return ReadElement(key, spec, /*is_run=*/false);
}

Result<Element> IteratorStateReader::ReadElement(std::string_view key, const ElementSpec& spec, bool is_run) const {
  SLUICE_ASSIGN_OR_RETURN(int64_t size, ReadInt(StrCat(key, "/size"), 0, 1 << 20));
  Element element;
  for (int64_t i = 0; i < size; ++i) {
    SLUICE_ASSIGN_OR_RETURN(Tensor t, ReadTensor(StrCat(key, "/", i)));
    element.components.push_back(std::move(t));
  }
  if (Status fits = spec.Check(element, is_run); !fits.ok()) {
    return Corrupt(key, StrCat("does not match the element spec ", spec, ": ", fits.message()));
  }
  return element;
}

Result<Element> IteratorStateReader::ReadRows(std::string_view key, const ElementSpec& spec, int64_t* rows) const {
  SLUICE_ASSIGN_OR_RETURN(*rows, ReadInt(StrCat(key, "/rows"), 0, std::numeric_limits<int64_t>::max()));
  if (*rows == 0) return Element();
  SLUICE_ASSIGN_OR_RETURN(Element element, ReadElement(StrCat(key, "/element"), spec, /*is_run=*/true));
  for (const Tensor& t : element.components) {
    if (t.dim(0) != *rows) {
      return Corrupt(StrCat(key, "/element"), StrCat("has a component of shape ", t.shape(), ", not ", *rows, " rows"));
    }
  }
  return element;
}

Status IteratorStateReader::ReadStatus(std::string_view key, Status* status) const {
  SLUICE_ASSIGN_OR_RETURN(int64_t code, ReadInt(StrCat(key, "/code"), static_cast<int64_t>(StatusCode::kOk),
                                                static_cast<int64_t>(StatusCode::kDataLoss)));
  SLUICE_ASSIGN_OR_RETURN(std::string message, ReadString(StrCat(key, "/message")));
  *status = code == static_cast<int64_t>(StatusCode::kOk) ? OkStatus()
                                                          : Status(static_cast<StatusCode>(code), std::move(message));
  return OkStatus();
}

Status IteratorStateReader::ReadIterator(std::string_view key, Iterator& iterator) {
  return Nested(prefix_, key, [&] { return iterator.Restore(*this); });
}

Result<std::string> SaveIteratorState(Iterator& iterator) {
  IteratorStateWriter writer;
  SLUICE_RETURN_IF_ERROR(iterator.Save(writer));
  return writer.Serialize();
}

Status RestoreIteratorState(Iterator& iterator, std::string_view bytes) {
  SLUICE_ASSIGN_OR_RETURN(IteratorStateReader reader, IteratorStateReader::Parse(bytes));
  return iterator.Restore(reader);
}

}  // namespace sluice
