// Helpers of the data-service tests that read range(n) through the
// service: the spec, what an iterator yields, and what it should yield.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice::service {

// The spec of range(stop).
inline spec::Pipeline RangeSpec(int64_t stop) {
  spec::Pipeline pipeline;
  pipeline.add_ops()->mutable_range()->set_stop(stop);
  return pipeline;
}

// The int64 scalars `iterator` yields, up to `limit` (a failure ends them).
inline std::vector<int64_t> Drain(Iterator& iterator, size_t limit = SIZE_MAX) {
  std::vector<int64_t> out;
  while (out.size() < limit) {
    Result<std::optional<Element>> next = iterator.GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) break;
    out.push_back((**next)[0].scalar<int64_t>());
  }
  return out;
}

// 0, 1, ..., n - 1.
inline std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
  return out;
}

}  // namespace sluice::service
