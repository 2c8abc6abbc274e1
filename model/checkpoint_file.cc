#include "sluice/model/checkpoint_file.h"

#include <bit>
#include <cstring>

#include "sluice/core/durable_file.h"
#include "sluice/model/checkpoint.pb.h"
#include "sluice/tfrecord/crc32c.h"
#include "sluice/tfrecord/input_stream.h"

namespace sluice {
namespace {

// Numeric tensors are stored as their in-memory bytes.
static_assert(std::endian::native == std::endian::little,
              "checkpoints assume a little-endian host");

constexpr char kMagic[8] = {'S', 'L', 'U', 'I', 'C', 'K', 'P', 'T'};
constexpr size_t kHeaderSize = 24;

template <typename T>
void PutLittleEndian(char* out, T value) {
  std::memcpy(out, &value, sizeof(value));
}
template <typename T>
T GetLittleEndian(const char* in) {
  T value;
  std::memcpy(&value, in, sizeof(value));
  return value;
}

// The CRC the header stores: of its first 20 bytes, then the payload.
uint32_t ContentsCrc(const char* header, std::string_view payload) {
  return crc32c::Extend(crc32c::Value(header, 20), payload.data(), payload.size());
}

Status ToProto(const std::string& name, const Tensor& tensor, checkpoint::TensorEntry* entry) {
  if (!tensor.valid()) return InvalidArgumentError("tensor \"", name, "\" is invalid (empty)");
  if (tensor.device().type != DeviceType::kCpu) {
    return InvalidArgumentError("tensor \"", name, "\" is on ", tensor.device().ToString(),
                                "; checkpoints take CPU tensors");
  }
  entry->set_name(name);
  entry->set_dtype(std::string(DTypeName(tensor.dtype())));
  for (int64_t dim : tensor.shape().dims()) entry->add_shape(dim);
  if (tensor.dtype() == DType::kString) {
    const TString* values = tensor.data<TString>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) entry->add_string_values(std::string(values[i]));
  } else {
    entry->set_data(static_cast<const char*>(tensor.raw_data()), tensor.NumBytes());
  }
  return OkStatus();
}

Result<Tensor> FromProto(const checkpoint::TensorEntry& entry) {
  auto damaged = [&](const auto&... what) {
    return DataLossError("tensor \"", entry.name(), "\": ", what...);
  };
  Result<DType> dtype = ParseDType(entry.dtype());
  if (!dtype.ok()) return damaged("unknown dtype \"", entry.dtype(), "\"");
  Result<Shape> shape =
      Shape::FromDims(std::span<const int64_t>(entry.shape().data(), entry.shape().size()));
  if (!shape.ok()) return damaged("invalid shape: ", shape.status().message());
  Tensor tensor = Tensor::Allocate(*dtype, *shape);
  if (*dtype == DType::kString) {
    if (entry.string_values_size() != tensor.NumElements()) {
      return damaged(entry.string_values_size(), " strings for shape ", *shape);
    }
    TString* values = tensor.mutable_data<TString>();
    for (int i = 0; i < entry.string_values_size(); ++i) values[i] = entry.string_values(i);
    return tensor;
  }
  if (entry.data().size() != tensor.NumBytes()) {
    return damaged(entry.data().size(), " bytes for ", DTypeName(*dtype), *shape, " (",
                   tensor.NumBytes(), " expected)");
  }
  if (*dtype == DType::kBool) {
    for (char byte : entry.data()) {
      if (byte != 0 && byte != 1) return damaged("a bool byte is ", static_cast<int>(byte));
    }
  }
  std::memcpy(tensor.raw_data(), entry.data().data(), entry.data().size());
  return tensor;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  std::string bytes;
  constexpr size_t kChunk = 1 << 20;
  while (true) {
    const size_t done = bytes.size();
    bytes.resize(done + kChunk);
    SLUICE_ASSIGN_OR_RETURN(size_t n, stream->Read(bytes.data() + done, kChunk));
    bytes.resize(done + n);
    if (n < kChunk) return bytes;
  }
}

// Parses a whole file's bytes; errors say what failed, without the path.
Result<CheckpointContents> Decode(std::string_view bytes) {
  if (bytes.size() < kHeaderSize) {
    return DataLossError("truncated: ", bytes.size(), " bytes, shorter than the ", kHeaderSize,
                         "-byte header");
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return DataLossError("not a checkpoint file (bad magic)");
  }
  const auto version = GetLittleEndian<uint32_t>(bytes.data() + 8);
  const auto payload_size = GetLittleEndian<uint64_t>(bytes.data() + 12);
  const auto stored_crc = crc32c::Unmask(GetLittleEndian<uint32_t>(bytes.data() + 20));
  if (payload_size != bytes.size() - kHeaderSize) {
    return DataLossError("the header gives ", payload_size, " payload bytes but the file has ",
                         bytes.size() - kHeaderSize, " (truncated or damaged)");
  }
  const std::string_view payload = bytes.substr(kHeaderSize);
  const uint32_t crc = ContentsCrc(bytes.data(), payload);
  if (crc != stored_crc) {
    return DataLossError("checksum mismatch (CRC32C ", crc, ", stored ", stored_crc, ")");
  }
  if (version != kCheckpointFormatVersion) {
    return UnimplementedError("format version ", version, "; this build reads version ",
                              kCheckpointFormatVersion);
  }
  checkpoint::Checkpoint proto;
  if (!proto.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return DataLossError("the payload is not a valid sluice.checkpoint.Checkpoint");
  }
  CheckpointContents contents;
  auto duplicate = [](std::string_view kind, const std::string& name) {
    return DataLossError(kind, " \"", name, "\" appears twice");
  };
  for (const checkpoint::TensorEntry& entry : proto.tensors()) {
    SLUICE_ASSIGN_OR_RETURN(Tensor tensor, FromProto(entry));
    if (!contents.tensors.emplace(entry.name(), std::move(tensor)).second) {
      return duplicate("tensor", entry.name());
    }
  }
  for (const checkpoint::ScalarEntry& entry : proto.scalars()) {
    if (!contents.scalars.emplace(entry.name(), entry.value()).second) {
      return duplicate("scalar", entry.name());
    }
  }
  for (const checkpoint::BlobEntry& entry : proto.blobs()) {
    if (!contents.blobs.emplace(entry.name(), entry.value()).second) {
      return duplicate("blob", entry.name());
    }
  }
  return contents;
}

Result<std::string> Encode(const CheckpointContents& contents) {
  checkpoint::Checkpoint proto;
  for (const auto& [name, tensor] : contents.tensors) {
    SLUICE_RETURN_IF_ERROR(ToProto(name, tensor, proto.add_tensors()));
  }
  for (const auto& [name, value] : contents.scalars) {
    checkpoint::ScalarEntry* entry = proto.add_scalars();
    entry->set_name(name);
    entry->set_value(value);
  }
  for (const auto& [name, value] : contents.blobs) {
    checkpoint::BlobEntry* entry = proto.add_blobs();
    entry->set_name(name);
    entry->set_value(value);
  }
  std::string payload;
  if (!proto.SerializeToString(&payload)) {
    return InvalidArgumentError("the checkpoint is too large for one file (", proto.ByteSizeLong(),
                                " bytes; protobuf's limit is 2 GiB)");
  }
  std::string bytes(kHeaderSize, '\0');
  std::memcpy(bytes.data(), kMagic, sizeof(kMagic));
  PutLittleEndian(bytes.data() + 8, kCheckpointFormatVersion);
  PutLittleEndian(bytes.data() + 12, static_cast<uint64_t>(payload.size()));
  PutLittleEndian(bytes.data() + 20, crc32c::Mask(ContentsCrc(bytes.data(), payload)));
  bytes += payload;
  return bytes;
}

}  // namespace

Status WriteCheckpointFile(const std::string& path, const CheckpointContents& contents) {
  Result<std::string> bytes = Encode(contents);
  if (!bytes.ok()) return bytes.status().WithContext(StrCat("Writing checkpoint ", path));
  return WriteFileAtomically(path, *bytes);
}

Result<CheckpointContents> ReadCheckpointFile(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  Result<CheckpointContents> contents = Decode(bytes);
  if (!contents.ok()) return contents.status().WithContext(StrCat("Checkpoint ", path));
  return contents;
}

}  // namespace sluice
