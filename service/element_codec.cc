#include "sluice/service/element_codec.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace sluice::service {
namespace {

// Zero bytes that padding pieces point into.
const std::byte kZeros[kPayloadAlignment] = {};

uint64_t AlignUp(uint64_t n) { return (n + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment; }

std::span<const std::byte> BytesOf(const void* data, size_t size) {
  return {static_cast<const std::byte*>(data), size};
}

// The string section of a component: [u64 LE lengths][bytes], in one owned
// buffer (strings are many and small; gathering each would cost more than
// the copy).
std::shared_ptr<const Buffer> EncodeStrings(const Tensor& tensor) {
  const int64_t count = tensor.NumElements();
  const TString* strings = tensor.data<TString>();
  size_t bytes = static_cast<size_t>(count) * sizeof(uint64_t);
  for (int64_t i = 0; i < count; ++i) bytes += strings[i].size();
  std::shared_ptr<Buffer> buffer = Buffer::Allocate(bytes, CpuAllocator(), Buffer::Fill::kUninitialized);
  char* out = static_cast<char*>(buffer->data());
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t size = strings[i].size();
    for (int b = 0; b < 8; ++b) out[b] = static_cast<char>((size >> (8 * b)) & 0xff);
    out += sizeof(uint64_t);
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!strings[i].empty()) std::memcpy(out, strings[i].data(), strings[i].size());
    out += strings[i].size();
  }
  return buffer;
}

// One zstd frame of all the pieces: the first *compressed_bytes bytes of
// the buffer returned.
Result<std::shared_ptr<const Buffer>> Compress(const std::vector<std::span<const std::byte>>& pieces,
                                               uint64_t total, int level, size_t* compressed_bytes) {
  const size_t bound = ZSTD_compressBound(total);
  if (ZSTD_isError(bound)) return InvalidArgumentError("an element of ", total, " bytes is too large for zstd");
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out,
                          Buffer::TryAllocate(bound, CpuAllocator(), Buffer::Fill::kUninitialized));
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context) return ResourceExhaustedError("cannot make a zstd compression context");
  ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setPledgedSrcSize(context.get(), total);
  ZSTD_outBuffer output{out->data(), out->size(), 0};
  for (size_t i = 0; i <= pieces.size(); ++i) {
    const bool last = i == pieces.size();
    ZSTD_inBuffer input{last ? nullptr : pieces[i].data(), last ? 0 : pieces[i].size(), 0};
    const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    size_t left = 0;
    do {
      left = ZSTD_compressStream2(context.get(), &output, &input, mode);
      if (ZSTD_isError(left)) return InternalError("zstd compression failed: ", ZSTD_getErrorName(left));
    } while (last ? left != 0 : input.pos < input.size);
  }
  *compressed_bytes = output.pos;
  return std::shared_ptr<const Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> Decompress(const ElementHeader& header, const Buffer& payload,
                                           const DecodeOptions& options) {
  const uint64_t size = header.uncompressed_length();
  if (size > options.max_uncompressed_bytes) {
    return ResourceExhaustedError("a compressed element claims ", size, " bytes uncompressed, more than the limit of ",
                                  options.max_uncompressed_bytes);
  }
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out,
                          Buffer::TryAllocate(size, CpuAllocator(), Buffer::Fill::kUninitialized));
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!context) return ResourceExhaustedError("cannot make a zstd decompression context");
  ZSTD_inBuffer input{payload.data(), payload.size(), 0};
  ZSTD_outBuffer output{out->data(), out->size(), 0};
  size_t left = 1;
  while (input.pos < input.size) {
    left = ZSTD_decompressStream(context.get(), &output, &input);
    if (ZSTD_isError(left)) {
      return DataLossError("a compressed element's payload is corrupt: ", ZSTD_getErrorName(left));
    }
    if (output.pos == output.size && left != 0 && input.pos < input.size) {
      return DataLossError("a compressed element decompresses to more than the ", size, " bytes its header says");
    }
    if (left == 0) break;
  }
  if (left != 0 || input.pos != input.size || output.pos != size) {
    return DataLossError("a compressed element's payload (", payload.size(), " bytes) decompressed to ",
                         output.pos, " bytes; its header says ", size, left != 0 ? " (truncated)" : "");
  }
  return out;
}

// A string component from its section [offset, offset + length) of `payload`.
Result<Tensor> DecodeStrings(const Shape& shape, const std::shared_ptr<Buffer>& payload, uint64_t offset,
                             uint64_t length) {
  const int64_t count = shape.NumElements();
  if (static_cast<uint64_t>(count) > length / sizeof(uint64_t)) {
    return DataLossError("a string component of shape ", shape, " needs ", count, " lengths, its ", length,
                         " bytes hold at most ", length / sizeof(uint64_t));
  }
  const uint8_t* section = static_cast<const uint8_t*>(payload->data()) + offset;
  uint64_t text = static_cast<uint64_t>(count) * sizeof(uint64_t);
  const uint64_t text_begin = text;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    for (int b = 0; b < 8; ++b) size |= static_cast<uint64_t>(section[i * 8 + b]) << (8 * b);
    if (size > length - text) {
      return DataLossError("string ", i, " of a component of shape ", shape, " has ", size, " bytes, past the ",
                           length, " bytes of its section");
    }
    text += size;
  }
  if (text != length) {
    return DataLossError("a string component of shape ", shape, " holds ", text, " bytes of a section of ", length);
  }
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor, Tensor::TryAllocate(DType::kString, shape));
  TString* strings = tensor.mutable_data<TString>();
  const char* bytes = reinterpret_cast<const char*>(section) + text_begin;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    for (int b = 0; b < 8; ++b) size |= static_cast<uint64_t>(section[i * 8 + b]) << (8 * b);
    strings[i] = TString::View(std::string_view(bytes, size));
    bytes += size;
  }
  tensor.AddBacking(payload);
  return tensor;
}

}  // namespace

Result<EncodedElement> EncodeElement(Element element, const EncodeOptions& options) {
  if (!options.component_names.empty() && options.component_names.size() != element.size()) {
    return InvalidArgumentError("an element of ", element.size(), " components cannot take ",
                                options.component_names.size(), " component names");
  }
  EncodedElement encoded;
  std::vector<std::span<const std::byte>> pieces;
  uint64_t offset = 0;
  for (size_t i = 0; i < element.size(); ++i) {
    const Tensor& tensor = element[i];
    if (!tensor.valid()) return InvalidArgumentError("component ", i, " of the element is not a valid tensor");
    if (tensor.device().type != DeviceType::kCpu) {
      return InvalidArgumentError("component ", i, " is in ", tensor.device().ToString(),
                                  " memory: copy it to the host before sending it");
    }
    const uint64_t aligned = AlignUp(offset);
    if (aligned > offset) pieces.push_back(BytesOf(kZeros, aligned - offset));
    offset = aligned;
    ComponentHeader* component = encoded.header.add_components();
    if (!options.component_names.empty()) component->set_name(options.component_names[i]);
    component->set_dtype(std::string(DTypeName(tensor.dtype())));
    for (int d = 0; d < tensor.rank(); ++d) component->add_shape(tensor.dim(d));
    component->set_offset(offset);
    uint64_t length = 0;
    if (tensor.dtype() == DType::kString) {
      std::shared_ptr<const Buffer> strings = EncodeStrings(tensor);
      length = strings->size();
      if (length > 0) pieces.push_back(BytesOf(strings->data(), length));
      encoded.owned.push_back(std::move(strings));
    } else {
      length = tensor.NumBytes();
      if (length > 0) pieces.push_back(BytesOf(tensor.raw_data(), length));
    }
    component->set_length(length);
    offset += length;
  }
  encoded.header.set_split_id(-1);
  encoded.header.set_uncompressed_length(offset);
  if (options.compression == COMPRESSION_ZSTD && offset > 0) {
    size_t compressed_bytes = 0;
    SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const Buffer> compressed,
                            Compress(pieces, offset, options.zstd_level, &compressed_bytes));
    encoded.header.set_compression(COMPRESSION_ZSTD);
    encoded.payload = {BytesOf(compressed->data(), compressed_bytes)};
    encoded.payload_bytes = compressed_bytes;
    encoded.owned = {std::move(compressed)};  // the string sections are in it
  } else {
    encoded.payload = std::move(pieces);
    encoded.payload_bytes = offset;
    encoded.element = std::move(element);
  }
  return encoded;
}

ElementHeader EndOfStreamHeader(uint64_t index) {
  ElementHeader header;
  header.set_index(index);
  header.set_split_id(-1);
  header.set_end_of_stream(true);
  return header;
}

uint64_t DecodedBytes(const ElementHeader& header, uint64_t payload_bytes) {
  return header.compression() == COMPRESSION_NONE ? payload_bytes
                                                  : std::max(payload_bytes, header.uncompressed_length());
}

Result<Element> DecodeElement(const ElementHeader& header, std::shared_ptr<Buffer> payload,
                              const DecodeOptions& options) {
  SLUICE_CHECK(!header.end_of_stream()) << "DecodeElement of an end-of-stream header";
  if (payload == nullptr) payload = Buffer::Allocate(0);
  if (header.components_size() < 0 || static_cast<size_t>(header.components_size()) > options.max_components) {
    return InvalidArgumentError("an element of ", header.components_size(), " components passes the limit of ",
                                options.max_components);
  }
  switch (header.compression()) {
    case COMPRESSION_NONE:
      if (header.uncompressed_length() != payload->size()) {
        return DataLossError("an element's header says ", header.uncompressed_length(), " bytes, its payload has ",
                             payload->size());
      }
      break;
    case COMPRESSION_ZSTD: {
      SLUICE_ASSIGN_OR_RETURN(payload, Decompress(header, *payload, options));
      break;
    }
    default:
      return InvalidArgumentError("an element's compression ", static_cast<int>(header.compression()),
                                  " is not one this version knows");
  }
  const uint64_t size = payload->size();
  Element element;
  element.components.reserve(header.components_size());
  for (int i = 0; i < header.components_size(); ++i) {
    const ComponentHeader& component = header.components(i);
    auto context = [&] { return StrCat("component ", i, " (", component.name(), ")"); };
    Result<DType> dtype = ParseDType(component.dtype());
    if (!dtype.ok()) return dtype.status().WithContext(context());
    if (component.shape_size() > kMaxRank) {
      return InvalidArgumentError(context(), ": rank ", component.shape_size(), " passes the limit of ", kMaxRank);
    }
    const std::vector<int64_t> dims(component.shape().begin(), component.shape().end());
    Result<Shape> shape = Shape::FromDims(dims);
    if (!shape.ok()) return shape.status().WithContext(context());
    if (component.offset() > size || component.length() > size - component.offset()) {
      return DataLossError(context(), ": bytes [", component.offset(), ", +", component.length(),
                           ") pass the end of a payload of ", size, " bytes");
    }
    if (*dtype == DType::kString) {
      Result<Tensor> strings = DecodeStrings(*shape, payload, component.offset(), component.length());
      if (!strings.ok()) return strings.status().WithContext(context());
      element.components.push_back(std::move(*strings));
      continue;
    }
    Result<int64_t> bytes = CheckedNumBytes(*dtype, *shape);
    if (!bytes.ok()) return bytes.status().WithContext(context());
    if (static_cast<uint64_t>(*bytes) != component.length()) {
      return DataLossError(context(), ": a ", DTypeName(*dtype), *shape, " tensor has ", *bytes,
                           " bytes, its header says ", component.length());
    }
    Result<Tensor> tensor = Tensor::ViewOf(*dtype, *shape, payload, component.offset());
    if (!tensor.ok()) return tensor.status().WithContext(context());
    element.components.push_back(std::move(*tensor));
  }
  return element;
}

}  // namespace sluice::service
