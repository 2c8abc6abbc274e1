// Loading the Open MPI module (executor/mpi_module.h) on demand: the one
// place that finds libsluice_mpi.so and dlopens it, for every user of MPI
// (the data service's MpiWorld, the training collectives' MpiCollectives).
// A process that never calls LoadMpiModule never loads libmpi.
// Thread safety: LoadMpiModule may be called from any thread; the module's
// functions follow executor/mpi_module.h's rule.
#pragma once

#include <string>

#include "sluice/core/status.h"
#include "sluice/executor/mpi_module.h"

namespace sluice {

// The module's functions, loaded once per process (the module is never
// closed: Open MPI cannot be unloaded and initialised again).
// FailedPrecondition naming the paths tried when it cannot be loaded.
Result<const SluiceMpiFunctions*> LoadMpiModule();

// MPI's words for `code`, with the code.
std::string MpiErrorText(const SluiceMpiFunctions& mpi, int code);

}  // namespace sluice
