// sluice train JOB.pbtxt [--resume]: runs a training job (model/job.h).
#include <iostream>

#include "sluice/model/job.h"
#include "sluice/tools/commands.h"

namespace sluice::cli {

Status TrainCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const model::TrainingJob job, ReadTrainingJob(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(
      const JobResult result,
      RunTrainingJob(job, {.resume = args.flags.contains("--resume"), .progress = &std::cout}));
  std::cout << "Trained " << result.epochs_done << " epochs\n";
  return OkStatus();
}

}  // namespace sluice::cli
