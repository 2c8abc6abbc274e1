#include "sluice/dataset/parallel_file_reads.h"

#include <algorithm>
#include <utility>

#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/interleave_dataset.h"

namespace sluice {

Result<DatasetPtr> MakeParallelFileReads(const std::vector<std::string>& files, int64_t reads,
                                         std::function<DatasetPtr(std::string path)> open_file,
                                         const ElementSpec& spec) {
  Tensor names = Tensor::Allocate(DType::kString, Shape{static_cast<int64_t>(files.size())});
  std::copy(files.begin(), files.end(), names.mutable_data<TString>());
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr slices, MakeFromSlicesDataset({{"", names}}));
  auto open = MakeLambdaDatasetFunction(
      [open_file = std::move(open_file)](const Element& file) -> Result<DatasetPtr> {
        return open_file(std::string(file[0].scalar<TString>()));
      },
      spec);
  return MakeInterleaveDataset(std::move(slices), std::move(open),
                               {.cycle_length = reads,
                                .block_length = 1,
                                .num_parallel_calls = reads,
                                .deterministic = Determinism::kDeterministic});
}

}  // namespace sluice
