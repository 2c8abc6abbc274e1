#include <iostream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"
#include "sluice/tools/stdout_writer.h"

namespace sluice::cli {

Status RunCommand(const CommandArgs& args) {
  // -1 (every element) when absent.
  SLUICE_ASSIGN_OR_RETURN(const int64_t take, CountFlag(args, "--take", -1));
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, DatasetFromSpec(spec));
  const std::unique_ptr<Iterator> iterator = dataset->MakeIterator();
  for (int64_t n = 0; take < 0 || n < take; ++n) {
    Result<std::optional<Element>> element = iterator->GetNext();
    if (!element.ok()) return element.status().WithContext(StrCat("element ", n));
    if (!element->has_value()) break;
    std::cout << ElementToJson(dataset->element_spec(), **element) << '\n';
    if (!std::cout) return FlushStdout();  // no one receives the rest
  }
  return OkStatus();
}

}  // namespace sluice::cli
