#include "sluice/dataset/element_seeds.h"

#include <limits>

#include "sluice/dataset/iterator_state.h"

namespace sluice {

uint64_t FunctionSeed(std::optional<uint64_t> own, std::optional<uint64_t> pipeline_seed, int depth) {
  if (own) return *own;
  if (pipeline_seed) return MixSeed(*pipeline_seed, static_cast<uint64_t>(depth));
  return RandomSeed();
}

uint64_t IterationSeeds::seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

IterationSeeds::Epoch IterationSeeds::Next() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {seed_, iterations_++};
}

void IterationSeeds::ResumeAfter(const Epoch& epoch) const {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = epoch.seed;
  iterations_ = epoch.index + 1;
}

void ElementSeeds::Adopt(IterationSeeds::Epoch epoch, int64_t position) {
  epoch_ = epoch;
  iterator_seed_ = MixSeed(epoch.seed, epoch.index);
  position_ = position;
}

void ElementSeeds::Save(IteratorStateWriter& writer) const {
  writer.WriteInt("seeds/seed", static_cast<int64_t>(epoch_.seed));
  writer.WriteInt("seeds/epoch", static_cast<int64_t>(epoch_.index));
  writer.WriteInt("seeds/position", position_);
}

Status ElementSeeds::Restore(const IteratorStateReader& reader) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  SLUICE_ASSIGN_OR_RETURN(const int64_t seed, reader.ReadInt("seeds/seed"));
  SLUICE_ASSIGN_OR_RETURN(const int64_t epoch, reader.ReadInt("seeds/epoch", 0, kMax - 1));
  SLUICE_ASSIGN_OR_RETURN(const int64_t position, reader.ReadInt("seeds/position", 0, kMax));
  Adopt({static_cast<uint64_t>(seed), static_cast<uint64_t>(epoch)}, position);
  dataset_->ResumeAfter(epoch_);
  return OkStatus();
}

}  // namespace sluice
