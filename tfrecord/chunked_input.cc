#include "sluice/tfrecord/chunked_input.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "sluice/tfrecord/zlib_input_stream.h"

namespace sluice {

Result<std::unique_ptr<ChunkedInput>> ChunkedInput::Open(const std::string& path, ChunkedInputOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  return std::make_unique<ChunkedInput>(std::move(stream), std::move(options));
}

ChunkedInput::ChunkedInput(std::unique_ptr<InputStream> stream, ChunkedInputOptions options)
    : stream_(options.compression == Compression::kNone ? std::move(stream)
                                                        : MakeZlibInputStream(std::move(stream), options.compression)),
      compressed_(options.compression != Compression::kNone),
      origin_source_(std::make_shared<const std::string>(
          compressed_ ? StrCat("the decompressed stream of ", stream_->name()) : stream_->name())),
      chunk_size_(std::max<size_t>(options.chunk_size, 1)),
      charge_(std::move(options.charge)),
      usual_(std::min(chunk_size_, kFirstChunkSize)),
      chunk_(Buffer::Allocate(usual_, CpuAllocator(), Buffer::Fill::kUninitialized)) {}

ChunkedInput::~ChunkedInput() {
  if (charged_ > 0) static_cast<void>(charge_(-charged_));
}

Status ChunkedInput::Charge(size_t size) {
  const int64_t charge = size > kFirstChunkSize ? static_cast<int64_t>(size - kFirstChunkSize) : 0;
  if (charge == charged_ || charge_ == nullptr) return OkStatus();
  SLUICE_RETURN_IF_ERROR(charge_(charge - charged_));
  charged_ = charge;
  return OkStatus();
}

Result<std::shared_ptr<Buffer>> ChunkedInput::NextChunk(size_t unread) {
  size_t size = usual_;
  while (size <= unread) {
    if (size > std::numeric_limits<size_t>::max() / 2) return ResourceExhaustedError(name(), ": an item too large");
    size *= 2;
  }
  if (size == usual_ && filled_ && usual_ < chunk_size_) {
    // The stream filled the last chunk: the next is twice as large, up to
    // chunk_size_, as far as the charge allows.
    const size_t grown = std::min(usual_ * 2, chunk_size_);
    if (Charge(grown).ok()) size = usual_ = grown;
  }
  SLUICE_RETURN_IF_ERROR(
      Charge(size).WithContext(StrCat(name(), ": growing the read buffer to ", size, " bytes for an item of ", unread,
                                      " bytes or more at byte offset ", offset_)));
  if (!chunk_shared_ && chunk_->size() == size) return chunk_;
  // The spare is free once this input holds its only reference: no view of
  // it is left, and none can appear. The fence orders the last holder's
  // reads of it before the writes that follow.
  if (spare_ != nullptr && spare_.use_count() == 1 && spare_->size() == size) {
    std::atomic_thread_fence(std::memory_order_acquire);
    return std::move(spare_);
  }
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> fresh,
                          Buffer::TryAllocate(size, CpuAllocator(), Buffer::Fill::kUninitialized));
  return fresh;
}

Result<size_t> ChunkedInput::Refill() {
  if (ended_) return 0;
  const size_t unread = available();
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> next, NextChunk(unread));
  if (next == chunk_) {
    std::memmove(data(), begin(), unread);
  } else {
    std::memcpy(next->data(), begin(), unread);
    std::shared_ptr<Buffer> old = std::exchange(chunk_, std::move(next));
    if (chunk_shared_) spare_ = std::move(old);  // a chunk nobody views is freed now
    chunk_shared_ = false;
  }
  begin_ = 0;
  end_ = unread;
  chunk_->set_origin({origin_source_, offset_});
  const size_t wanted = chunk_->size() - end_;
  SLUICE_ASSIGN_OR_RETURN(size_t read, stream_->Read(data() + end_, wanted));
  ended_ = read == 0;
  filled_ = read == wanted;
  end_ += read;
  return read;
}

Status ChunkedInput::SkipTo(uint64_t offset) {
  SLUICE_ASSIGN_OR_RETURN(uint64_t skipped, stream_->Skip(offset));
  if (skipped < offset) {
    return DataLossError(name(), ": resuming at byte offset ", offset, ", but the stream ends at ", skipped);
  }
  offset_ = offset;
  return OkStatus();
}

}  // namespace sluice
