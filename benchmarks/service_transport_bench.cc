// The data service's transport against a raw loopback TCP stream, side by
// side in one run, as a table of medians in GB/s:
//   raw:    one thread write()s N bytes in W-byte writes, another read()s them;
//   framed: a Server sends the same bytes as elements of W bytes (one uint8
//           tensor each) through a Connection with credit flow control, a
//           client thread receives, decodes (views, no copy) and returns
//           each element's credit as it consumes (ReturnCredit batches it);
//   zstd:   framed with wire compression (data of 4 bits of entropy a byte);
//   thread: framed, sent from a thread of its own (as a worker's session
//           sends) through an ElementOutbox (service/element_outbox.h);
//   blocking: the same thread waiting for each element's write
//           (Connection::SendElementBlocking).
// W is 64 KiB and 1 MiB; each variant runs --runs times (median shown).
// benchmarks/run_service_transport.sh builds and runs it.
//
// Usage: service_transport_bench [--bytes N (1 GiB)] [--runs R (5)]
//                                [--only raw|framed|zstd|thread|blocking (that column alone, e.g. under perf)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "raw_loopback_stream.h"
#include "sluice/service/connect.h"
#include "sluice/service/element_outbox.h"
#include "sluice/service/server.h"

namespace sluice::service {
namespace {

using Seconds = std::chrono::duration<double>;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Who sends the framed stream's elements: a coroutine on the server's io
// thread, or a thread of its own through an outbox or waiting per element.
enum class Sender { kIoThread, kOutbox, kBlocking };

// Framed: seconds for a client to receive `total` bytes as elements of
// `chunk` bytes from a Server.
double FramedStream(uint64_t total, size_t chunk, Compression compression, Sender sender = Sender::kIoThread) {
  Tensor tensor = Tensor::AllocateUninitialized(DType::kUInt8, Shape{static_cast<int64_t>(chunk)});
  std::mt19937 random(7);
  for (size_t i = 0; i < chunk; ++i) tensor.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(random() & 15);
  const uint64_t elements = total / chunk;
  std::vector<std::thread> senders;  // joined once the server stops
  auto server = Server::Start(
      {.role = ROLE_WORKER},
      [&](std::shared_ptr<Connection> connection) -> asio::awaitable<void> {
        if (sender != Sender::kIoThread) {
          // The thread ends with the stream; the connection stays open until the client hangs up.
          senders.emplace_back([connection, &tensor, elements, sender] {
            const std::chrono::seconds timeout(60);
            ElementOutbox outbox(connection);
            for (uint64_t i = 0; i <= elements; ++i) {
              EncodedElement encoded;
              if (i < elements) {
                Result<EncodedElement> made = EncodeElement(Element{tensor});
                if (!made.ok()) Die(made.status().ToString());
                encoded = *std::move(made);
                encoded.header.set_index(i);
              } else {
                encoded.header = EndOfStreamHeader(elements);
              }
              const Status s = sender == Sender::kOutbox ? outbox.SendElement(std::move(encoded), timeout)
                                                         : connection->SendElementBlocking(std::move(encoded), timeout);
              if (!s.ok()) Die(s.ToString());
            }
            (void)outbox.Flush(timeout);  // the client may hang up once it has the end
          });
          (void)co_await connection->Receive(DeadlineAfter(std::chrono::seconds(60)));
          co_return;
        }
        for (uint64_t i = 0; i < elements; ++i) {
          Result<EncodedElement> encoded = EncodeElement(Element{tensor}, {.compression = compression});
          if (!encoded.ok()) Die(encoded.status().ToString());
          encoded->header.set_index(i);
          Status s = co_await connection->SendElement(std::move(*encoded), std::chrono::seconds(60));
          if (!s.ok()) Die(s.ToString());
        }
        EncodedElement end;
        end.header = EndOfStreamHeader(elements);
        (void)co_await connection->SendElement(std::move(end), std::chrono::seconds(60));
        // Wait for the client to hang up.
        (void)co_await connection->Receive(DeadlineAfter(std::chrono::seconds(60)));
      });
  if (!server.ok()) Die(server.status().ToString());
  IoThread io("bench-client");
  const auto start = std::chrono::steady_clock::now();
  Result<std::shared_ptr<Connection>> client = Connect(io, (*server)->address(), {});
  if (!client.ok()) Die(client.status().ToString());
  Connection& connection = **client;
  const std::chrono::seconds timeout(60);
  if (Status s = connection.GrantCreditBlocking(kDefaultCreditBytes, kDefaultCreditElements, timeout); !s.ok()) {
    Die(s.ToString());
  }
  // Credit goes back as elements are consumed (the connection batches it).
  uint64_t received = 0;
  while (true) {
    Result<ReceivedFrame> frame = connection.ReceiveBlocking(timeout);
    if (!frame.ok()) Die(frame.status().ToString());
    if (frame->frame.element().end_of_stream()) break;
    Result<Element> element = DecodeElement(frame->frame.element(), frame->payload);
    if (!element.ok()) Die(element.status().ToString());
    received += (*element)[0].NumBytes();
    connection.ReturnCredit(DecodedBytes(frame->frame.element(), frame->payload ? frame->payload->size() : 0), 1);
  }
  const double seconds = Seconds(std::chrono::steady_clock::now() - start).count();
  connection.Close();
  (*server)->Stop();
  for (std::thread& thread : senders) thread.join();
  if (received != elements * chunk) Die("framed stream lost bytes");
  return seconds;
}

int Main(int argc, char** argv) {
  uint64_t total = uint64_t{1} << 30;
  int runs = 5;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--bytes") == 0) total = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  // One run of a column's measure, or 0 when --only leaves the column out.
  const auto column = [&](const char* name, const auto& measure) {
    return only.empty() || only == name ? measure() : 0.0;
  };
  std::printf("%-10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "write", "raw GB/s", "framed", "zstd", "thread",
              "blocking", "framed/raw", "zstd/raw", "thread/raw");
  for (size_t chunk : {size_t{64} << 10, size_t{1} << 20}) {
    std::vector<double> raw, framed, zstd, thread, blocking;
    const uint64_t bytes = total / chunk * chunk;
    // Interleaved, so that a change in the machine's load hits all three alike.
    for (int r = 0; r < runs; ++r) {
      raw.push_back(column("raw", [&] { return bytes / RawLoopbackStream(bytes, chunk) / 1e9; }));
      framed.push_back(column("framed", [&] { return bytes / FramedStream(bytes, chunk, COMPRESSION_NONE) / 1e9; }));
      zstd.push_back(column("zstd", [&] { return bytes / FramedStream(bytes, chunk, COMPRESSION_ZSTD) / 1e9; }));
      thread.push_back(column("thread", [&] {
        return bytes / FramedStream(bytes, chunk, COMPRESSION_NONE, Sender::kOutbox) / 1e9;
      }));
      blocking.push_back(column("blocking", [&] {
        return bytes / FramedStream(bytes, chunk, COMPRESSION_NONE, Sender::kBlocking) / 1e9;
      }));
    }
    const double r = Median(raw), f = Median(framed), z = Median(zstd), t = Median(thread), b = Median(blocking);
    std::printf("%-10s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n",
                chunk >= (1 << 20) ? "1 MiB" : "64 KiB", r, f, z, t, b, f / r, z / r, t / r);
  }
  return 0;
}

}  // namespace
}  // namespace sluice::service

int main(int argc, char** argv) { return sluice::service::Main(argc, argv); }
