#include "sluice/dataset/stats.h"

namespace sluice {

void StatsCounters::Add(std::string_view name, int64_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counters_.find(name);
  if (it == counters_.end()) it = counters_.emplace(std::string(name), 0).first;
  it->second += delta;
}

int64_t StatsCounters::Get(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counters_.find(name);
  return it == counters_.end() ? 0 : it->second;
}

std::map<std::string, int64_t, std::less<>> StatsCounters::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace sluice
