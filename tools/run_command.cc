#include <charconv>
#include <iostream>

#include "dataset/pipeline_spec_io.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

// The --take value: a count >= 0, or -1 (all elements) when absent.
Result<int64_t> TakeCount(const CommandArgs& args) {
  const auto flag = args.flags.find("--take");
  if (flag == args.flags.end()) return int64_t{-1};
  const std::string& text = flag->second;
  int64_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc() || end != text.data() + text.size() || count < 0) {
    return InvalidArgumentError("--take expects a count >= 0, got '", text, "'");
  }
  return count;
}

}  // namespace

Status RunCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t take, TakeCount(args));
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, DatasetFromSpec(spec));
  const std::unique_ptr<Iterator> iterator = dataset->MakeIterator();
  for (int64_t n = 0; take < 0 || n < take; ++n) {
    Result<std::optional<Element>> element = iterator->GetNext();
    if (!element.ok()) return element.status().WithContext(StrCat("element ", n));
    if (!element->has_value()) break;
    std::cout << ElementToJson(dataset->element_spec(), **element) << '\n';
  }
  return OkStatus();
}

}  // namespace sluice::cli
