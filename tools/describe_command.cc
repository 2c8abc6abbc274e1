#include <iostream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tools/commands.h"

namespace sluice::cli {

Status DescribeCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, DatasetFromSpec(spec));
  std::cout << DescribeGraph(*dataset);
  return OkStatus();
}

}  // namespace sluice::cli
