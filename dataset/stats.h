// Counters that ops report while a traversal runs ("tfrecord/corrupt_records",
// "tfrecord/records"), shared by every iterator of the traversal through
// IteratorContext::stats. Ops add to them rarely (per file, per damaged
// record), never per element, so a mutex is cheap enough.
// Read them by passing your own context to Dataset::MakeIterator:
//
//   IteratorContext ctx;
//   auto it = dataset->MakeIterator(ctx);
//   ... iterate ...
//   int64_t skipped = ctx.stats->Get("tfrecord/corrupt_records");
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace sluice {

class StatsCounters {
 public:
  void Add(std::string_view name, int64_t delta);
  // 0 for a counter never added to.
  int64_t Get(std::string_view name) const;
  // Every counter, by name.
  std::map<std::string, int64_t, std::less<>> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t, std::less<>> counters_;  // guarded by mu_
};

}  // namespace sluice
