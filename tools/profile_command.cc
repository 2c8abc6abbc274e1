#include <chrono>
#include <cmath>
#include <iostream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/profiler.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"
#include "sluice/tools/progress.h"

namespace sluice::cli {

// Traverses the pipeline again and again, all traversals into one profile,
// until the time is up (checked after every element); the profile
// and the runtime are shared by the traversals.
Status ProfileCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const double seconds, DurationFlag(args, "--seconds", 5.0));
  SLUICE_ASSIGN_OR_RETURN(const bool show_progress, ProgressFlag(args));
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, DatasetFromSpec(spec));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(seconds));
  // Progress in whole seconds of the run, with the elements so far.
  Progress progress({.label = "profile", .item = "elements", .step = "s"}, {.enabled = show_progress});
  ProgressCounts counts{.total = static_cast<int64_t>(std::ceil(seconds))};
  int64_t traversals = 0;
  int64_t elements = 0;
  for (bool done = false; !done; ++traversals) {
    // Each traversal owns its cancellation scope: ending one cancels it.
    ctx.cancellation = std::make_shared<Cancellation>();
    const std::unique_ptr<Iterator> iterator = dataset->MakeIterator(ctx);
    while (true) {
      // Each element is a consumer step that only waits: the report's
      // Consumer line gives the input wait per element.
      const auto call_start = std::chrono::steady_clock::now();
      Result<std::optional<Element>> element = iterator->GetNext();
      const auto call_end = std::chrono::steady_clock::now();
      if (!element.ok()) return element.status().WithContext(StrCat("element ", elements));
      if (element->has_value()) ctx.profile->RecordConsumerStep(call_end - call_start, call_end - call_start);
      if (call_end >= deadline) done = true;
      if (!element->has_value() || done) break;
      ++elements;
      if (show_progress) {
        counts.items = elements;
        counts.done = std::chrono::duration_cast<std::chrono::seconds>(call_end - start).count();
        progress.Update(counts);
      }
    }
    if (elements == 0 && !done) done = true;  // an empty pipeline: once is enough
  }
  progress.Clear();
  const ProfileSnapshot snapshot = ctx.profile->Snapshot();
  const ProfileReport report = AnalyzeProfile(snapshot);
  std::cout << DescribeGraph(*dataset) << "\n"
            << elements << " elements in " << traversals << " traversal(s)\n"
            << FormatProfileReport(report);
  if (const auto trace = args.flags.find("--trace"); trace != args.flags.end()) {
    SLUICE_RETURN_IF_ERROR(WriteProfileFile(trace->second, TraceEventsToJson(snapshot)));
  }
  if (const auto json = args.flags.find("--json"); json != args.flags.end()) {
    SLUICE_RETURN_IF_ERROR(WriteProfileFile(json->second, ProfileReportToJson(report)));
  }
  return OkStatus();
}

}  // namespace sluice::cli
