// Seeds of random element functions (BoundElementFunction::apply_seeded):
// each element of a map draws from its own seed, a function of (the
// function's seed, map's iterator, the element's position in map's input)
// only, so parallelism, autotuning and a restore do not change the draws.
//
//  - The function's seed (FunctionSeed): its own when given; else the
//    pipeline seed (Pipeline::Seed, spec Pipeline.seed) mixed with the
//    map's depth in the graph (Dataset::depth), its stable position; else a
//    random seed drawn when the map is built.
//  - The k-th iterator a map makes (k from 0: the epochs of a repeat after
//    the map, or the epochs of a training loop) draws from
//    MixSeed(function seed, k), so each epoch draws anew and the same run
//    of epochs draws the same again in a rebuilt pipeline.
//  - The element at position i of map's input (counted from 0 by the map
//    iterator, errors not counted) gets MixSeed(iterator seed, i).
// A saved map iterator holds its function seed, its k and its position; a
// restore adopts them (a random function seed too), and the iterators the
// dataset makes after it go on from k + 1.
// Thread safety: IterationSeeds is thread-safe; ElementSeeds is used by one
// iterator at a time.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>

#include "sluice/core/status.h"
#include "sluice/dataset/seed_mix.h"

namespace sluice {

class IteratorStateReader;
class IteratorStateWriter;

// The function's own seed, else MixSeed(pipeline_seed, depth), else a
// random one.
uint64_t FunctionSeed(std::optional<uint64_t> own, std::optional<uint64_t> pipeline_seed, int depth);

// A dataset's iterator count, for the seeds of its iterators (a random
// map's, and shuffle's epochs).
class IterationSeeds {
 public:
  // Where an iterator's seeds come from.
  struct Epoch {
    uint64_t seed;   // the function's seed
    uint64_t index;  // iterators made before this one
  };

  explicit IterationSeeds(uint64_t seed) : seed_(seed) {}
  IterationSeeds(const IterationSeeds&) = delete;
  IterationSeeds& operator=(const IterationSeeds&) = delete;

  // The function's seed (for people: describe).
  uint64_t seed() const;
  // A new iterator's epoch.
  Epoch Next() const;
  // After restoring an iterator of `epoch`: the next iterators continue as
  // they did in the saved run, with its seed.
  void ResumeAfter(const Epoch& epoch) const;

 private:
  mutable std::mutex mu_;
  mutable uint64_t seed_;            // guarded by mu_; changes only by ResumeAfter
  mutable uint64_t iterations_ = 0;  // guarded by mu_; iterators made so far
};

// One iterator's element seeds: its epoch and the position of the next
// element of its input.
class ElementSeeds {
 public:
  // A new iterator's: the dataset's next epoch, from position 0.
  explicit ElementSeeds(const IterationSeeds& dataset) : dataset_(&dataset) { Adopt(dataset.Next(), 0); }

  // The seed of the element at `position` of an iterator whose seed is
  // `iterator_seed`.
  static uint64_t At(uint64_t iterator_seed, int64_t position) {
    return MixSeed(iterator_seed, static_cast<uint64_t>(position));
  }
  uint64_t iterator_seed() const { return iterator_seed_; }
  int64_t position() const { return position_; }
  // The next element's seed; moves past it.
  uint64_t Next() { return At(iterator_seed_, position_++); }
  // Moves past `count` elements.
  void Skip(int64_t count) { position_ += count; }

  // Writes the epoch and the position under "seeds/".
  void Save(IteratorStateWriter& writer) const;
  // Reads what Save wrote and adopts it (IterationSeeds::ResumeAfter).
  Status Restore(const IteratorStateReader& reader);

 private:
  void Adopt(IterationSeeds::Epoch epoch, int64_t position);

  const IterationSeeds* dataset_;  // outlives the iterator
  IterationSeeds::Epoch epoch_;
  uint64_t iterator_seed_ = 0;
  int64_t position_ = 0;
};

}  // namespace sluice
