// Mpirun: `mpirun -np N sluice ...` as a child process for the tests that
// run Sluice's MPI roles (sluice serve --mpi, sluice train under mpirun), on
// loopback only (the tcp transport on lo) and, as root, with Open MPI's two
// environment variables set; the helpers that check how its ranks end.
//
// Sanitizers: the ranks run the same build of `sluice` as the test. Under
// ASan, LeakSanitizer finds what Open MPI's libraries allocate in MPI_Init
// and keep (libpmix, libopen-pal, libhwloc, its mca_ components; a rank
// that stops on a signal skips MPI_Finalize): the ranks get a suppression
// file naming those libraries only (open_mpi_lsan_suppressions.txt) and
// full stacks for it to match.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "service/cli_process.h"
#include "sluice/core/status.h"

namespace sluice::service {

// Whether the mpirun the build found is there to run.
inline bool HaveMpirun() {
  const std::string path = SLUICE_MPIEXEC_PATH;
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

// For the `sluice` processes this test starts, which initialise Open MPI:
// under ASan, what Open MPI's libraries keep is not reported (see the
// file); full stacks, so that the suppressions see the Open MPI frames.
// Idempotent.
inline void UseOpenMpiLeakSuppressions() {
  const std::string asan = getenv("ASAN_OPTIONS") == nullptr ? "" : getenv("ASAN_OPTIONS");
  if (asan.find("fast_unwind_on_malloc=0") == std::string::npos) {
    setenv("ASAN_OPTIONS", StrCat(asan, ":fast_unwind_on_malloc=0").c_str(), 1);
  }
  setenv("LSAN_OPTIONS", "fast_unwind_on_malloc=0:suppressions=" SLUICE_OPEN_MPI_LSAN_SUPPRESSIONS, 1);
}

// mpirun -np `ranks` sluice `arguments`, on loopback. Its destructor sends
// SIGTERM (mpirun passes it to every rank) and waits for it to exit.
class Mpirun {
 public:
  // Its stdout and stderr (with the ranks') are read together.
  Mpirun(int ranks, const std::vector<std::string>& arguments)
      : process_(SLUICE_MPIEXEC_PATH, Command(ranks, arguments), /*merge_stderr=*/true) {}
  ~Mpirun() {
    process_.Signal(SIGTERM);
    process_.Wait(std::chrono::seconds(20));
  }
  CliProcess& process() { return process_; }

  // The pid of rank `rank`, one of mpirun's children, by its
  // OMPI_COMM_WORLD_RANK; -1 when there is none.
  pid_t RankPid(int rank) const {
    std::ifstream children(StrCat("/proc/", process_.pid(), "/task/", process_.pid(), "/children"));
    const std::string wanted = StrCat("OMPI_COMM_WORLD_RANK=", rank);
    for (pid_t child; children >> child;) {
      std::ifstream environ(StrCat("/proc/", child, "/environ"));
      for (std::string variable; std::getline(environ, variable, '\0');) {
        if (variable == wanted) return child;
      }
    }
    return -1;
  }

 private:
  static std::vector<std::string> Command(int ranks, const std::vector<std::string>& arguments) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    UseOpenMpiLeakSuppressions();
    std::vector<std::string> command = {"-np", std::to_string(ranks), "--oversubscribe", "--mca", "btl", "self,tcp",
                                        "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
                                        SLUICE_CLI_PATH};
    command.insert(command.end(), arguments.begin(), arguments.end());
    return command;
  }

  CliProcess process_;
};

// Whether process `pid` still runs (a zombie that its new parent has not
// reaped yet does not).
inline bool IsRunning(pid_t pid) {
  std::ifstream stat(StrCat("/proc/", pid, "/stat"));
  std::string pid_field, command, state;
  if (!(stat >> pid_field >> command >> state)) return false;
  return state != "Z" && state != "X";
}

// Whether process `pid` is gone within `timeout` (a rank orphaned by
// mpirun's exit may still be leaving: under ASan, the leak check at exit).
inline bool StopsWithin(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (IsRunning(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace sluice::service
