// ChunkedInput: the bytes of a file (decompressed when it is ZLIB or GZIP)
// in shared read chunks, for readers of delimited formats that hand out
// views of what they parse instead of copies: text lines
// (tfrecord/line_reader.h) and CSV records (tfrecord/csv_reader.h).
//
// A reader looks at the unread bytes [begin(), end()), consumes what it has
// parsed, and asks for more with Refill() when an item (a line, a record)
// runs past end(): the unread bytes move to the front of a chunk and more
// are read after them, so an item is always whole in one chunk. A chunk
// that has handed out views (Share()) is never written again: the next
// refill copies the unread bytes to the spare chunk, the one before, once
// the reader holds its last reference (its views are gone), or to a fresh
// one. The first chunk is small (kFirstChunkSize), and each refill that the
// stream filled to the end doubles the next, up to `chunk_size`, so a small
// file never costs a large buffer; a chunk also grows (doubling) while an
// item fills it. Every byte of a chunk past kFirstChunkSize is charged to
// `charge` (a pipeline's RAM budget) while the chunk is in use: refused,
// the usual size stays as it is, and an item that needs more is an error.
// Readers bound their items, and so the growth, before refilling.
// Thread safety: an input is used by one thread at a time; views of its
// chunks may be read from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sluice/core/buffer.h"
#include "sluice/core/status.h"
#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/input_stream.h"

namespace sluice {

// Where a reader of a ChunkedInput's items (lines, records) stands in its
// file, to resume there with a fresh reader of the same file.
struct ItemPosition {
  uint64_t offset = 0;    // of the next item's first byte (of the decompressed stream for ZLIB/GZIP)
  int64_t next_item = 0;  // the next item's index
};

struct ChunkedInputOptions {
  Compression compression = Compression::kNone;
  size_t chunk_size = 256 << 10;  // bytes, >= 1: the usual chunk
  // Called with +bytes before a chunk larger than kFirstChunkSize is used
  // and with -bytes when it is let go of (see above). Null: no charge.
  std::function<Status(int64_t bytes)> charge;
};

class ChunkedInput {
 public:
  static Result<std::unique_ptr<ChunkedInput>> Open(const std::string& path, ChunkedInputOptions options);
  // Reads `stream` (already open), decompressing it when options say so.
  ChunkedInput(std::unique_ptr<InputStream> stream, ChunkedInputOptions options);
  ~ChunkedInput();  // releases what it charged
  ChunkedInput(const ChunkedInput&) = delete;
  ChunkedInput& operator=(const ChunkedInput&) = delete;

  // The unread bytes, writable until they are viewed.
  char* begin() const { return data() + begin_; }
  char* end() const { return data() + end_; }
  size_t available() const { return end_ - begin_; }
  void Consume(size_t bytes) {
    begin_ += bytes;
    offset_ += bytes;
  }
  // The stream offset of begin() (of the decompressed stream when compressed).
  uint64_t offset() const { return offset_; }
  // Reads more bytes after the unread ones, moving those to the front of a
  // chunk first. Returns how many were added: 0 only at the end of the
  // stream. A read error names the file; a refused charge is
  // ResourceExhausted.
  Result<size_t> Refill();
  // Passes over the stream's first `offset` bytes: a file seeks, a
  // compressed stream is decompressed up to there. DataLoss when the
  // stream is shorter. REQUIRES: nothing read yet.
  Status SkipTo(uint64_t offset);

  // The chunk that begin() points into, for views of its bytes: from now on
  // it is never written.
  const std::shared_ptr<Buffer>& Share() {
    chunk_shared_ = true;
    return chunk_;
  }
  // The file name, or "the decompressed stream of <file>", for messages.
  const std::string& name() const { return *origin_source_; }
  bool compressed() const { return compressed_; }

 private:
  // The first chunk's size, when chunk_size is larger; chunks are charged
  // past it.
  static constexpr size_t kFirstChunkSize = 4 << 10;

  char* data() const { return static_cast<char*>(chunk_->data()); }
  // The chunk for `unread` bytes and at least one more, and its charge.
  Result<std::shared_ptr<Buffer>> NextChunk(size_t unread);
  // Makes charged_ what a chunk of `size` bytes is charged.
  Status Charge(size_t size);

  const std::unique_ptr<InputStream> stream_;
  const bool compressed_;
  const std::shared_ptr<const std::string> origin_source_;  // Buffer::Origin of the chunks
  const size_t chunk_size_;
  const std::function<Status(int64_t)> charge_;
  size_t usual_;                   // a chunk's size when no item needs more
  std::shared_ptr<Buffer> chunk_;  // not zero-filled: only read bytes are used
  bool chunk_shared_ = false;      // views of chunk_ were handed out
  std::shared_ptr<Buffer> spare_;  // the chunk before chunk_, reused once its views are gone
  int64_t charged_ = 0;            // for chunk_'s size past chunk_size_
  size_t begin_ = 0;               // unread bytes are data()[begin_, end_)
  size_t end_ = 0;
  uint64_t offset_ = 0;  // stream offset of data()[begin_]
  bool ended_ = false;   // the stream returned its end
  bool filled_ = true;   // the last refill read all it asked for
};

}  // namespace sluice
