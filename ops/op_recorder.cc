#include "sluice/ops/op_recorder.h"

#include <vector>

#include "sluice/core/logging.h"

namespace sluice {
namespace {

std::vector<OpRecorder*>& ThreadRecorders() {
  thread_local std::vector<OpRecorder*> recorders;
  return recorders;
}

}  // namespace

ScopedOpRecorder::ScopedOpRecorder(OpRecorder* recorder) : recorder_(recorder) {
  ThreadRecorders().push_back(recorder);
}

ScopedOpRecorder::~ScopedOpRecorder() {
  auto& recorders = ThreadRecorders();
  SLUICE_CHECK(!recorders.empty() && recorders.back() == recorder_)
      << "op recorder scopes must end in reverse order, on their own thread";
  recorders.pop_back();
}

std::span<OpRecorder* const> ActiveOpRecorders() { return ThreadRecorders(); }

}  // namespace sluice
