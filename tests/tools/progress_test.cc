// The progress line: its format (a table of cases), drawing throttled by a
// fake clock, erasing, and silence when disabled. The commands' use of it
// (quiet through pipes, --progress always) is in tfrecord_command_test.cc
// and cli_test.cc.
#include "sluice/tools/progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace sluice::cli {
namespace {

using Clock = ProgressOptions::Clock;

TEST(ProgressTest, LineFormat) {
  const ProgressNames verify{.label = "verify", .item = "records", .step = "files"};
  const ProgressNames write{.label = "write", .item = "records"};
  const ProgressNames profile{.label = "profile", .item = "elements", .step = "s"};
  struct Case {
    ProgressNames names;
    ProgressCounts counts;
    double elapsed;
    std::string line;
  };
  const Case cases[] = {
      {verify, {.items = 0, .bytes = 0, .done = 0, .total = 10}, /*elapsed=*/0, "verify: 0/10 files, 0 records, 0 B"},
      {verify, {.items = 120000, .bytes = 47815065, .done = 3, .total = 10}, /*elapsed=*/6,
       "verify: 3/10 files, 120000 records, 45.6 MiB, 7.6 MiB/s, ETA 14s"},
      {write, {.items = 5000, .bytes = 2048, .total = 20000}, /*elapsed=*/30,
       "write: 5000/20000 records, 2.0 KiB, 68 B/s, ETA 1m30s"},
      {write, {.items = 7, .bytes = 700}, /*elapsed=*/1, "write: 7 records, 700 B, 700 B/s"},
      {profile, {.items = 123456, .done = 2, .total = 5}, /*elapsed=*/2.0,
       "profile: 2/5 s, 123456 elements, 61728 elements/s, ETA 3s"},
      {profile, {.items = 10, .done = 0, .total = 5}, /*elapsed=*/0.5, "profile: 0/5 s, 10 elements, 20 elements/s"},
      {verify, {.items = 1, .bytes = 3LL << 30, .done = 1, .total = 4000}, /*elapsed=*/2,
       "verify: 1/4000 files, 1 records, 3.0 GiB, 1.5 GiB/s, ETA 2h13m"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatProgressLine(c.names, c.counts, c.elapsed), c.line);
}

// A Progress on a fake clock that the test moves by hand.
struct FakeClockProgress {
  explicit FakeClockProgress(bool enabled)
      : progress({.label = "write", .item = "records"},
                 {.enabled = enabled, .out = &out, .now = [this] { return now; }}) {}
  Clock::time_point now{};
  std::ostringstream out;
  Progress progress;
};

TEST(ProgressTest, DrawsAtOnceThenAtMostTenTimesASecond) {
  FakeClockProgress p(/*enabled=*/true);
  p.progress.Update({.items = 1, .bytes = 10});
  EXPECT_EQ(p.out.str(), "\rwrite: 1 records, 10 B");
  p.now += std::chrono::milliseconds(50);
  p.progress.Update({.items = 2, .bytes = 20});
  EXPECT_EQ(p.out.str(), "\rwrite: 1 records, 10 B") << "within 100 ms of the last line";
  p.now += std::chrono::milliseconds(50);
  p.progress.Update({.items = 3, .bytes = 30});
  EXPECT_EQ(p.out.str(), "\rwrite: 1 records, 10 B\rwrite: 3 records, 30 B, 300 B/s");
}

TEST(ProgressTest, ClearErasesTheLineOnce) {
  FakeClockProgress p(/*enabled=*/true);
  p.progress.Update({.items = 1, .bytes = 10});
  p.progress.Clear();
  p.progress.Clear();
  const std::string line = "write: 1 records, 10 B";
  EXPECT_EQ(p.out.str(), "\r" + line + "\r" + std::string(line.size(), ' ') + "\r");
}

TEST(ProgressTest, AShorterLineCoversTheLongerOneBeforeIt) {
  FakeClockProgress p(/*enabled=*/true);
  p.progress.Update({.items = 1, .bytes = 2048});  // "..., 2.0 KiB"
  p.now += std::chrono::seconds(1);
  p.progress.Update({.items = 2, .bytes = 4096});  // "..., 4.0 KiB, 4.0 KiB/s"
  p.out.str("");
  p.now += std::chrono::seconds(1000);
  p.progress.Update({.items = 3, .bytes = 3});  // shorter
  const std::string line = "write: 3 records, 3 B, 0 B/s";
  const std::string longest = "write: 2 records, 4.0 KiB, 4.0 KiB/s";
  EXPECT_EQ(p.out.str(), "\r" + line + std::string(longest.size() - line.size(), ' '));
}

TEST(ProgressTest, DisabledWritesNothing) {
  FakeClockProgress p(/*enabled=*/false);
  p.progress.Update({.items = 1});
  p.now += std::chrono::seconds(1);
  p.progress.Update({.items = 2});
  p.progress.Clear();
  EXPECT_EQ(p.out.str(), "");
}

TEST(ProgressTest, TheFlagChoosesAndRejectsOtherValues) {
  EXPECT_EQ(ProgressFlag({.flags = {{"--progress", "always"}}}).value(), true);
  EXPECT_EQ(ProgressFlag({.flags = {{"--progress", "never"}}}).value(), false);
  const Status bad = ProgressFlag({.flags = {{"--progress", "yes"}}}).status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "--progress expects auto, always or never, got 'yes'");
}

}  // namespace
}  // namespace sluice::cli
