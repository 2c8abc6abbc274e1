// Stand-in for oneTBB's blocked_range in the toolkit-only GPU check
// (gpu_check/CMakeLists.txt), where oneTBB may be missing: just the range.
#pragma once

namespace tbb {

template <typename T>
class blocked_range {
 public:
  blocked_range(T begin, T end, T /*grain*/ = 1) : begin_(begin), end_(end) {}
  T begin() const { return begin_; }
  T end() const { return end_; }

 private:
  T begin_, end_;
};

}  // namespace tbb
