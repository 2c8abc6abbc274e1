// sluice train JOB.pbtxt [--resume]: runs a training job (model/job.h).
// Under mpirun (OMPI_COMM_WORLD_SIZE set), this process is one rank of a
// data-parallel run of the job (executor/mpi_collectives.h); a rank that
// fails prints its error and aborts the whole job (MPI_Abort), so that the
// other ranks end at once instead of waiting in their next collective.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "sluice/executor/mpi_collectives.h"
#include "sluice/model/job.h"
#include "sluice/tools/commands.h"

namespace sluice::cli {

Status TrainCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const model::TrainingJob job, ReadTrainingJob(args.positional[0]));
  std::unique_ptr<MpiCollectives> world;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(world, MpiCollectives::Join());
  }
  const bool chief = world == nullptr || world->rank() == 0;
  Result<JobResult> result = RunTrainingJob(job, {.resume = args.flags.contains("--resume"),
                                                  .progress = chief ? &std::cout : nullptr,
                                                  .collectives = world.get()});
  if (!result.ok() && world != nullptr && world->size() > 1) {
    std::cout.flush();
    // One write, so that mpirun's own report of the abort cannot land inside the line.
    const std::string line =
        StrCat("sluice train: MPI rank ", world->rank(), " of ", world->size(), ": ", result.status().ToString(), "\n");
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
    world->Abort(1);
  }
  SLUICE_RETURN_IF_ERROR(result.status());
  if (chief) {
    std::cout << "Trained " << result->epochs_done << " epochs";
    if (world != nullptr && world->size() > 1) std::cout << " on " << world->size() << " ranks";
    std::cout << "\n";
  }
  return OkStatus();
}

}  // namespace sluice::cli
