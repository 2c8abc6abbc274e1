// Saving and restoring an input pipeline's position (tf.data's explicit
// checkpointing): read k elements, save the iterator's state as bytes,
// restore it into a new iterator of the same pipeline, and check that it
// continues with exactly the elements the first one would have produced.
#include <cstdio>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/pipeline.h"

using namespace sluice;

namespace {

// The same pipeline each time: in a training job, built again on resume.
Result<DatasetPtr> BuildPipeline() {
  return Pipeline::Range(100)
      .Shuffle({.buffer_size = 16, .seed = 7})
      .Batch({.batch_size = 4})
      .Prefetch(2)
      .Build();
}

Result<std::vector<int64_t>> FirstValues(Iterator& it, int count) {
  std::vector<int64_t> firsts;
  for (int i = 0; i < count; ++i) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> batch, it.GetNext());
    if (!batch) break;
    firsts.push_back((*batch)[0].data<int64_t>()[0]);
  }
  return firsts;
}

Status Run() {
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, BuildPipeline());
  auto it = dataset->MakeIterator();
  SLUICE_RETURN_IF_ERROR(FirstValues(*it, 5).status());  // train k steps with it->GetNext()
  SLUICE_ASSIGN_OR_RETURN(std::string input_state, SaveIteratorState(*it));   // one blob for the checkpoint

  // Later, perhaps in another process, with the same pipeline built again:
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr rebuilt, BuildPipeline());
  auto resumed = rebuilt->MakeIterator();
  SLUICE_RETURN_IF_ERROR(RestoreIteratorState(*resumed, input_state));

  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> expected, FirstValues(*it, 100));
  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> got, FirstValues(*resumed, 100));
  if (got != expected) return InternalError("the resumed iterator differs from the original");
  std::printf("resumed from a %zu-byte state: %zu batches, identical\n", input_state.size(), got.size());
  return OkStatus();
}

}  // namespace

int main() {
  const Status status = Run();
  if (!status.ok()) std::printf("%s\n", status.ToString().c_str());
  return status.ok() ? 0 : 1;
}
