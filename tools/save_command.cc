#include <iostream>

#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/save.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"

namespace sluice::cli {

Status SaveCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t shards, CountFlag(args, "--shards", 1, 1, kMaxSnapshotShards));
  const std::string compression_name = FlagOr(args, "--compression", "none");
  Result<Compression> compression = ParseCompression(compression_name);
  if (!compression.ok()) {
    return InvalidArgumentError("--compression expects none, zlib or gzip, got '", compression_name, "'");
  }
  SaveOptions options{.compression = *compression, .shard_count = shards};
  if (const std::string shard_func = FlagOr(args, "--shard-func", ""); !shard_func.empty()) {
    Result<ElementFunctionPtr> function = MakeExpressionFunction({{"shard", shard_func}});
    if (!function.ok()) return function.status().WithContext("--shard-func");
    options.shard_func = *std::move(function);
  }
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, DatasetFromSpec(spec));
  SLUICE_ASSIGN_OR_RETURN(const int64_t written, SaveDataset(*dataset, args.positional[1], std::move(options)));
  std::cout << "saved " << written << " elements to " << args.positional[1] << '\n';
  return OkStatus();
}

}  // namespace sluice::cli
