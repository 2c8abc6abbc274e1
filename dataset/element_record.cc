#include "sluice/dataset/element_record.h"

#include <boost/container/small_vector.hpp>

#include <bit>
#include <cstring>

namespace sluice {
namespace {

static_assert(std::endian::native == std::endian::little, "element records assume a little-endian host");

void PutU64(uint64_t value, std::string* out) { out->append(reinterpret_cast<const char*>(&value), 8); }

// The unread bytes of a record, consumed front to back.
class RecordCursor {
 public:
  explicit RecordCursor(std::string_view bytes) : bytes_(bytes) {}

  size_t left() const { return bytes_.size(); }
  size_t offset(std::string_view record) const { return record.size() - bytes_.size(); }
  bool TakeU64(uint64_t* value) {
    if (bytes_.size() < 8) return false;
    std::memcpy(value, bytes_.data(), 8);
    bytes_.remove_prefix(8);
    return true;
  }
  bool TakeU8(uint8_t* value) {
    if (bytes_.empty()) return false;
    *value = static_cast<uint8_t>(bytes_[0]);
    bytes_.remove_prefix(1);
    return true;
  }
  // REQUIRES: size <= left().
  std::string_view Take(size_t size) {
    std::string_view taken = bytes_.substr(0, size);
    bytes_.remove_prefix(size);
    return taken;
  }

 private:
  std::string_view bytes_;
};

// The shape of component `c` from its spec and the record's open dims.
Result<Shape> ReadShape(const ComponentSpec& spec, size_t c, RecordCursor& cursor) {
  auto damaged = [&](const auto&... what) { return DataLossError("component ", c, ": ", what...); };
  std::vector<int64_t> dims;
  if (!spec.shape.known_rank()) {
    uint8_t rank = 0;
    if (!cursor.TakeU8(&rank)) return damaged("the record ends before its rank");
    if (rank > kMaxRank) return damaged("rank ", static_cast<int>(rank), " passes the limit of ", kMaxRank);
    dims.assign(rank, -1);
  } else {
    dims.assign(spec.shape.dims().begin(), spec.shape.dims().end());
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] >= 0) continue;
    uint64_t dim = 0;
    if (!cursor.TakeU64(&dim)) return damaged("the record ends before dim ", d);
    if (dim > static_cast<uint64_t>(INT64_MAX)) return damaged("dim ", d, " is ", dim, ", past int64");
    dims[d] = static_cast<int64_t>(dim);
  }
  Result<Shape> shape = Shape::FromDims(dims);
  if (!shape.ok()) return damaged(shape.status().message());
  return shape;
}

// Copies a numeric component of `bytes` bytes from the record to `out`.
Status TakeNumeric(DType dtype, const Shape& shape, int64_t bytes, size_t c, RecordCursor& cursor, void* out) {
  if (static_cast<uint64_t>(bytes) > cursor.left()) {
    return DataLossError("component ", c, ": a ", DTypeName(dtype), shape, " tensor needs ", bytes,
                         " bytes, the record has ", cursor.left(), " left");
  }
  if (bytes > 0) std::memcpy(out, cursor.Take(static_cast<size_t>(bytes)).data(), bytes);
  if (dtype == DType::kBool) {
    const auto* values = static_cast<const uint8_t*>(out);
    for (int64_t i = 0; i < bytes; ++i) {
      if (values[i] > 1) return DataLossError("component ", c, ": bool value ", i, " is ", int{values[i]});
    }
  }
  return OkStatus();
}

// Checks the lengths of a string component of `count` strings, and returns
// the section holding them.
Result<std::string_view> TakeStringLengths(int64_t count, size_t c, RecordCursor& cursor) {
  if (static_cast<uint64_t>(count) > cursor.left() / 8) {
    return DataLossError("component ", c, ": ", count, " strings need ", count, " lengths, the record has ",
                         cursor.left(), " bytes left");
  }
  std::string_view lengths = cursor.Take(static_cast<size_t>(count) * 8);
  uint64_t total = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    std::memcpy(&size, lengths.data() + i * 8, 8);
    if (size > cursor.left() - total) {
      return DataLossError("component ", c, ": string ", i, " has ", size, " bytes, past the ",
                           cursor.left(), " left in the record");
    }
    total += size;
  }
  return lengths;
}

// The strings whose checked `lengths` precede them, into out[0, count):
// views of the record when `view`, copies otherwise.
void TakeStrings(std::string_view lengths, int64_t count, RecordCursor& cursor, bool view, TString* out) {
  for (int64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    std::memcpy(&size, lengths.data() + i * 8, 8);
    const std::string_view bytes = cursor.Take(static_cast<size_t>(size));
    out[i] = view ? TString::View(bytes) : TString(bytes);
  }
}

Result<Tensor> ReadNumeric(DType dtype, const Shape& shape, size_t c, RecordCursor& cursor) {
  SLUICE_ASSIGN_OR_RETURN(int64_t bytes, CheckedNumBytes(dtype, shape));
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor,
                          Tensor::TryAllocate(dtype, shape, {.fill = Buffer::Fill::kUninitialized}));
  SLUICE_RETURN_IF_ERROR(TakeNumeric(dtype, shape, bytes, c, cursor, tensor.raw_data()));
  return tensor;
}

Result<Tensor> ReadStrings(const Shape& shape, size_t c, RecordCursor& cursor,
                           const std::shared_ptr<const Buffer>& owner) {
  const int64_t count = shape.NumElements();
  SLUICE_ASSIGN_OR_RETURN(std::string_view lengths, TakeStringLengths(count, c, cursor));
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor, Tensor::TryAllocate(DType::kString, shape));
  TakeStrings(lengths, count, cursor, owner != nullptr, tensor.mutable_data<TString>());
  if (owner != nullptr) tensor.AddBacking(owner);
  return tensor;
}

}  // namespace

Status EncodeElementRecord(const ElementSpec& spec, const Element& element, std::string* out) {
  SLUICE_RETURN_IF_ERROR(spec.Check(element));
  for (size_t c = 0; c < element.size(); ++c) {
    const Tensor& tensor = element[c];
    if (tensor.device().type != DeviceType::kCpu) {
      return InvalidArgumentError("component ", spec.DisplayName(c), " is in ", tensor.device().ToString(),
                                  " memory: copy it to the host first");
    }
    const PartialShape& shape = spec[c].shape;
    if (!shape.known_rank()) out->push_back(static_cast<char>(tensor.rank()));
    for (int d = 0; d < tensor.rank(); ++d) {
      if (!shape.known_rank() || shape.dim(d) < 0) PutU64(static_cast<uint64_t>(tensor.dim(d)), out);
    }
  }
  for (const Tensor& tensor : element.components) {
    if (tensor.dtype() != DType::kString) {
      out->append(static_cast<const char*>(tensor.raw_data()), tensor.NumBytes());
      continue;
    }
    const TString* strings = tensor.data<TString>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) PutU64(strings[i].size(), out);
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out->append(strings[i].data(), strings[i].size());
  }
  return OkStatus();
}

Result<Element> DecodeElementRecord(const ElementSpec& spec, std::string_view record,
                                    const std::shared_ptr<const Buffer>& owner, RamBudget* budget) {
  RecordCursor cursor(record);
  boost::container::small_vector<Shape, 4> shapes;
  for (size_t c = 0; c < spec.size(); ++c) {
    SLUICE_ASSIGN_OR_RETURN(Shape shape, ReadShape(spec[c], c, cursor));
    shapes.push_back(shape);
  }
  // What the element will hold: bounded by the record (each numeric byte
  // and each string's 8-byte length are in it), checked before allocating.
  int64_t charge = 0;
  for (size_t c = 0; c < spec.size(); ++c) {
    SLUICE_ASSIGN_OR_RETURN(int64_t bytes, CheckedNumBytes(spec[c].dtype, shapes[c]));
    const int64_t in_record = spec[c].dtype == DType::kString ? shapes[c].NumElements() * 8 : bytes;
    if (static_cast<uint64_t>(in_record) > record.size()) {
      return DataLossError("component ", c, ": a ", DTypeName(spec[c].dtype), shapes[c], " tensor needs ",
                           in_record, " bytes, more than the whole record (", record.size(), ")");
    }
    charge += bytes;
  }
  if (budget != nullptr) {
    if (Status charged = ChargeRecordBytes(*budget, charge); !charged.ok()) {
      return charged.WithContext(StrCat("an element of ", charge, " bytes"));
    }
  }
  Element element;
  Status status;
  for (size_t c = 0; c < spec.size() && status.ok(); ++c) {
    Result<Tensor> tensor = spec[c].dtype == DType::kString ? ReadStrings(shapes[c], c, cursor, owner)
                                                            : ReadNumeric(spec[c].dtype, shapes[c], c, cursor);
    if (tensor.ok()) {
      element.components.push_back(std::move(*tensor));
    } else {
      status = tensor.status();
    }
  }
  if (budget != nullptr) budget->Release(charge);
  SLUICE_RETURN_IF_ERROR(status);
  if (cursor.left() != 0) {
    return DataLossError("the record has ", cursor.left(), " bytes after its last component (of ", record.size(),
                         ")");
  }
  return element;
}

bool AllowsRecordRuns(const ElementSpec& spec) {
  if (spec.size() == 0 || !spec.AllowsRuns()) return false;
  for (const ComponentSpec& component : spec.components()) {
    if (!component.shape.IsFullyDefined()) return false;
  }
  return true;
}

Status DecodeElementRecordIntoRow(const ElementSpec& spec, std::string_view record, std::span<Tensor> run,
                                  int64_t row) {
  RecordCursor cursor(record);
  for (size_t c = 0; c < spec.size(); ++c) {
    Tensor& out = run[c];
    const Shape shape = spec[c].shape.ToShape();
    const int64_t count = shape.NumElements();
    if (spec[c].dtype == DType::kString) {
      SLUICE_ASSIGN_OR_RETURN(std::string_view lengths, TakeStringLengths(count, c, cursor));
      TakeStrings(lengths, count, cursor, /*view=*/true, out.mutable_data<TString>() + row * count);
      continue;
    }
    const int64_t bytes = count * static_cast<int64_t>(DTypeSize(spec[c].dtype));
    SLUICE_RETURN_IF_ERROR(
        TakeNumeric(spec[c].dtype, shape, bytes, c, cursor, static_cast<char*>(out.raw_data()) + row * bytes));
  }
  if (cursor.left() != 0) {
    return DataLossError("the record has ", cursor.left(), " bytes after its last component (of ", record.size(),
                         ")");
  }
  return OkStatus();
}

}  // namespace sluice
