// The plan of a file source that reads several files at once (tfrecord,
// text_line, csv with num_parallel_reads > 1), in tf.data's order:
// from_slices(files) -> interleave(file -> open_file(file),
// cycle_length = reads, block_length = 1, num_parallel_calls = reads,
// deterministic): one element from each open file in turn, a finished
// file's slot taking the next file when the cursor reaches it, each file
// read ahead by a worker thread.
// Thread safety: open_file is called from worker threads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

// REQUIRES: 2 <= reads <= files.size(); open_file's datasets have `spec`.
Result<DatasetPtr> MakeParallelFileReads(const std::vector<std::string>& files, int64_t reads,
                                         std::function<DatasetPtr(std::string path)> open_file,
                                         const ElementSpec& spec);

}  // namespace sluice
