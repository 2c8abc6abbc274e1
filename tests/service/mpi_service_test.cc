// `mpirun -np 3 sluice serve --mpi SPEC` (service/mpi_service.h): a whole
// service under Open MPI, read once through it by a client in this
// process, then stopped with SIGTERM; a rank killed with SIGKILL ends the
// others; --mpi outside mpirun says what is wrong.
//
// mpirun runs on loopback only (the tcp transport on lo) and, as root,
// only with Open MPI's two environment variables: the test sets them.
// Every wait is bounded; a test that fails stops its mpirun with SIGTERM
// first, so that no rank outlives it.
//
// Sanitizers: the ranks run the same build of `sluice` as the test. Under
// ASan, LeakSanitizer finds what Open MPI's libraries allocate in MPI_Init
// and keep (libpmix, libopen-pal, libhwloc, its mca_ components; a rank
// that stops on a signal skips MPI_Finalize): the ranks get a suppression
// file naming those libraries only (open_mpi_lsan_suppressions.txt) and
// full stacks for it to match. Under TSan the test runs as it is: MPI is
// called on the main thread only, before the roles start, and TSan reports
// nothing in Open MPI's threads.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/service_dataset.h"
#include "sluice/tests/temp_dir.h"
#include "service/cli_process.h"
#include "service/mpirun.h"
#include "service/range_values.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string WriteSpecFile(const testing::TempDir& dir, const spec::Pipeline& pipeline) {
  const std::string path = dir.File("spec.pbtxt");
  std::ofstream(path) << SpecToText(pipeline);
  return path;
}

// What rank 0 announces: the dispatcher, each worker, the dataset id.
struct Announcement {
  std::string dispatcher;
  std::vector<std::string> workers;
  std::string dataset_id;
  std::string text;  // the lines as printed
};

// Reads rank 0's lines up to the dataset line, skipping lines of other
// shapes (mpirun's and the ranks' stderr); nullopt on a timeout.
std::optional<Announcement> ReadAnnouncement(CliProcess& process) {
  Announcement announcement;
  for (;;) {
    std::optional<std::string> line = process.ReadLine(seconds(60));
    if (!line.has_value()) return std::nullopt;
    std::istringstream words(*line);
    std::string role, listening, on, address;
    words >> role >> listening >> on >> address;
    if (role == "dataset" && on.empty()) {
      announcement.dataset_id = listening;
      announcement.text += *line + "\n";
      return announcement;
    }
    if (listening != "listening" || on != "on") continue;
    if (role == "dispatcher") announcement.dispatcher = address;
    else if (role == "worker") announcement.workers.push_back(address);
    else continue;
    announcement.text += *line + "\n";
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MpiServiceTest, MpirunStartsAServiceThatDeliversTheDatasetOnceAndStopsOnSigterm) {
  testing::TempDir dir;
  constexpr int64_t kElements = 5000;
  const std::string address_file = dir.File("service.txt");
  Mpirun mpirun(3, {"serve", "--mpi", WriteSpecFile(dir, RangeSpec(kElements)), "--address-file", address_file});
  const std::optional<Announcement> announced = ReadAnnouncement(mpirun.process());
  ASSERT_TRUE(announced.has_value());
  EXPECT_EQ(announced->workers.size(), 2u);
  EXPECT_EQ(ReadFile(address_file), announced->text);

  Result<DatasetPtr> dataset = MakeServiceDataset({.address = announced->dispatcher,
                                                   .dataset_id = announced->dataset_id,
                                                   .processing_mode = ProcessingMode::kDistributedEpoch,
                                                   .timeout = milliseconds(20000)});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  auto iterator = (*dataset)->MakeIterator();
  std::vector<int64_t> values = Drain(*iterator);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, Iota(kElements));

  const pid_t ranks[] = {mpirun.RankPid(0), mpirun.RankPid(1), mpirun.RankPid(2)};
  for (pid_t rank : ranks) EXPECT_GT(rank, 0);
  mpirun.process().Signal(SIGTERM);
  // Every rank stops at once; mpirun waits a second more before it exits.
  std::string rest;
  while (std::optional<std::string> line = mpirun.process().ReadLine(seconds(20))) rest += *line + "\n";
  EXPECT_TRUE(mpirun.process().Wait(seconds(10)).has_value());
  // Under a sanitizer: no rank reports a leak, an error or a race as it stops.
  EXPECT_EQ(rest.find("Sanitizer"), std::string::npos) << rest;
  for (pid_t rank : ranks) EXPECT_TRUE(StopsWithin(rank, seconds(10))) << "rank pid " << rank;
}

TEST(MpiServiceTest, KilledRankEndsTheOthersWithAnError) {
  testing::TempDir dir;
  Mpirun mpirun(3, {"serve", "--mpi", WriteSpecFile(dir, RangeSpec(100))});
  ASSERT_TRUE(ReadAnnouncement(mpirun.process()).has_value());
  const pid_t dispatcher = mpirun.RankPid(0);
  const pid_t worker = mpirun.RankPid(2);
  ASSERT_GT(dispatcher, 0);
  ASSERT_GT(worker, 0);
  kill(worker, SIGKILL);
  const std::optional<int> status = mpirun.process().Wait(seconds(10));
  ASSERT_TRUE(status.has_value()) << "mpirun still runs 10 s after a rank was killed";
  EXPECT_NE(*status, 0);
  EXPECT_TRUE(StopsWithin(dispatcher, seconds(10)));
}

TEST(MpiServiceTest, MpiOutsideMpirunSaysWhatIsWrong) {
  testing::TempDir dir;
  UseOpenMpiLeakSuppressions();  // a singleton MPI_Init keeps what it allocated
  CliProcess serve(SLUICE_CLI_PATH, {"serve", "--mpi", WriteSpecFile(dir, RangeSpec(10))}, /*merge_stderr=*/true);
  std::string output;
  while (std::optional<std::string> line = serve.ReadLine(seconds(30))) output += *line + "\n";
  EXPECT_EQ(serve.Wait(seconds(10)), 1);
  EXPECT_NE(output.find("--mpi needs at least 2 MPI ranks"), std::string::npos) << output;
  EXPECT_NE(output.find("mpirun -np N"), std::string::npos) << output;
}

}  // namespace
}  // namespace sluice::service
