// `mpirun -np 2 sluice train JOB.pbtxt` (model/job.h, model/trainer.h):
// data-parallel training of the demo's model on the demo's data (which
// `sluice demo` writes), against one process on the same global batch.
//
//   - Parameters: 2 ranks at batch 16 end with the parameters of 1 process
//     at batch 32, within kTolerance (the ranks' mean of two 16-sample mean
//     gradients and the one 32-sample mean differ in rounding only). Each
//     rank trains on half the samples of an epoch (as many steps of half
//     the batch); with the parameters equal, the two halves are disjoint
//     and together the whole epoch.
//   - The demo's job as it is reaches the demo's validation accuracy on 2
//     ranks.
//   - Uneven shards: a pass ends on every rank when the shortest shard
//     ends.
//   - Written once: rank 0 alone prints the epoch lines and writes the
//     checkpoints, the TensorBoard events file and the export.
//   - Resume: 2 ranks stopped after epoch 2 and resumed end as an
//     uninterrupted 2-rank run does, bit for bit (each rank continues from
//     its own input position); a 1-process resume of their checkpoint is
//     refused.
//   - A rank that fails says why and aborts the job (MPI_Abort); a rank
//     killed with SIGKILL ends the job with an error within seconds.
// Every wait is bounded (service/mpirun.h); tests skip where mpirun is
// absent. Under TSan the test runs as it is, as the data service's MPI test
// does (Open MPI is not instrumented): MPI is called from the main thread
// only; the one report inside Open MPI, its TCP transport's lock order at
// MPI_Finalize, is suppressed by name (tests/tsan_suppressions.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "service/cli_process.h"
#include "service/mpirun.h"
#include "sluice/model/checkpoint_manager.h"
#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

using service::CliProcess;
using service::Mpirun;
using std::chrono::seconds;

// The largest difference allowed between a parameter of the 2-rank run and
// the 1-process run (the parameters are of order 1).
constexpr float kTolerance = 1e-5f;

// What a run printed and how it ended.
struct Outcome {
  std::optional<int> status;
  std::string output;
};

Outcome Finish(CliProcess& process) {
  Outcome run;
  while (std::optional<std::string> line = process.ReadLine(seconds(90))) run.output += *line + "\n";
  run.status = process.Wait(seconds(30));
  return run;
}

Outcome Train(int ranks, const std::vector<std::string>& arguments) {
  if (ranks == 1) {
    CliProcess process(SLUICE_CLI_PATH, arguments, /*merge_stderr=*/true);
    return Finish(process);
  }
  Mpirun mpirun(ranks, arguments);
  return Finish(mpirun.process());
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

size_t FilesIn(const std::string& directory) {
  std::error_code error;
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) count += entry.is_regular_file();
  return count;
}

// The demo's data, written once per test program by `sluice demo`.
class TrainMpiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = new testing::TempDir;
    CliProcess demo(SLUICE_CLI_PATH, {"demo", "--epochs", "1", "--dir", data_->File("demo")}, true);
    demo_status_ = Finish(demo).status;
  }
  static void TearDownTestSuite() {
    delete data_;
    data_ = nullptr;
  }
  void SetUp() override {
    if (!service::HaveMpirun()) GTEST_SKIP() << "no mpirun here ('" << SLUICE_MPIEXEC_PATH << "')";
    ASSERT_EQ(demo_status_, 0) << "sluice demo did not write the data";
  }

  // A pipeline spec over the demo's `split`, batched by `batch_size`;
  // repeated forever when `repeat`.
  std::string Spec(const std::string& split, int batch_size, bool repeat = false) {
    const std::string path = dir_.File(StrCat(split, "_", batch_size, repeat ? "_repeat" : "", ".pbtxt"));
    std::ofstream(path) << "ops { list_files { patterns: \"" << data_->File("demo") << "/data/" << split
                        << "-*.tfrecord.gz\" seed: 42 } }\n"
                        << "ops { interleave { function { ops { element_source { kind: TFRECORD tfrecord { "
                           "compression: \"GZIP\" } } } } cycle_length: 4 block_length: 1 } }\n"
                        << "ops { map { fn { parse_example { features { key: \"features\" dtype: \"float32\" shape: "
                           "2 } features { key: \"label\" dtype: \"int64\" } } } } }\n"
                        << "ops { shuffle { buffer_size: 1600 seed: 7 } }\n"
                        << (repeat ? "ops { repeat { count: -1 } }\n" : "")
                        << "ops { batch { batch_size: " << batch_size << " } }\n";
    return path;
  }

  // A job of the demo's model on `train`, writing under `name`/.
  std::string Job(const std::string& name, const std::string& train, int epochs, int64_t steps_per_epoch = 0) {
    const std::string path = dir_.File(name + ".pbtxt");
    const std::string out = dir_.File(name);
    std::ofstream(path) << "input { train: \"" << train << "\" validation: \"" << Spec("validation", 20) << "\" }\n"
                        << "model { input { name: \"features\" dtype: \"float32\" shape: 2 }\n"
                        << "  layers { name: \"hidden\" dense { units: 16 activation: \"relu\" } }\n"
                        << "  layers { name: \"logits\" dense { units: 1 } } }\n"
                        << "seed: 42\nloss { binary_crossentropy { from_logits: true } }\n"
                        << "optimizer { learning_rate { constant: 0.05 } sgd { momentum: 0.9 } }\n"
                        << "metrics { name: \"accuracy\" binary_accuracy { from_logits: true } }\n"
                        << "epochs: " << epochs << "\nsteps_per_epoch: " << steps_per_epoch << "\n"
                        << "checkpoint { directory: \"" << out << "/checkpoints\" max_to_keep: -1 }\n"
                        << "export_directory: \"" << out << "/export\"\n"
                        << "tensorboard_directory: \"" << out << "/logs\"\n";
    return path;
  }

  // The newest checkpoint under `name`/.
  CheckpointContents Latest(const std::string& name) {
    Result<CheckpointContents> contents = CheckpointManager(dir_.File(name) + "/checkpoints", -1).RestoreLatest();
    EXPECT_TRUE(contents.ok()) << contents.status();
    return contents.ok() ? *contents : CheckpointContents{};
  }

  // The largest difference between the model variables of two checkpoints.
  static float LargestDifference(const CheckpointContents& a, const CheckpointContents& b) {
    float largest = 0;
    size_t compared = 0;
    for (const auto& [name, tensor] : a.tensors) {
      if (name.rfind("model/", 0) != 0) continue;
      auto other = b.tensors.find(name);
      if (other == b.tensors.end() || other->second.shape() != tensor.shape()) return INFINITY;
      for (int64_t i = 0; i < tensor.NumElements(); ++i) {
        largest = std::max(largest, std::fabs(tensor.data<float>()[i] - other->second.data<float>()[i]));
      }
      ++compared;
    }
    return compared == 4 ? largest : INFINITY;  // hidden and logits, kernel and bias
  }

  static testing::TempDir* data_;
  static std::optional<int> demo_status_;
  testing::TempDir dir_;
};

testing::TempDir* TrainMpiTest::data_ = nullptr;
std::optional<int> TrainMpiTest::demo_status_;

TEST_F(TrainMpiTest, TwoRanksEndWithOneProcessParametersAndWriteEverythingOnce) {
  const Outcome one = Train(1, {"train", Job("one", Spec("train", 32), 3)});
  ASSERT_EQ(one.status, 0) << one.output;
  const Outcome two = Train(2, {"train", Job("two", Spec("train", 16), 3)});
  ASSERT_EQ(two.status, 0) << two.output;

  // 1600 samples: 50 steps of 32 alone, 50 of 16 on each rank.
  EXPECT_EQ(Count(one.output, "epoch 1: 50 steps"), 1u) << one.output;
  EXPECT_EQ(Count(two.output, "epoch 1: 50 steps"), 1u) << two.output;
  EXPECT_EQ(Count(two.output, "epoch "), 3u) << two.output;
  EXPECT_EQ(Count(two.output, "Trained 3 epochs on 2 ranks"), 1u) << two.output;
  EXPECT_EQ(Count(two.output, "Exported to "), 1u) << two.output;
  const float difference = LargestDifference(Latest("one"), Latest("two"));
  EXPECT_LE(difference, kTolerance);
  std::cout << "largest parameter difference, 2 ranks against 1 process: " << difference << "\n";

  EXPECT_EQ(FilesIn(dir_.File("two") + "/checkpoints"), 3u);
  EXPECT_EQ(FilesIn(dir_.File("two") + "/logs"), 1u);
  const CheckpointContents saved = Latest("two");
  EXPECT_EQ(saved.scalars.at("trainer/ranks"), 2);
  EXPECT_TRUE(saved.blobs.contains("input/iterator/0"));
  EXPECT_TRUE(saved.blobs.contains("input/iterator/1"));
  EXPECT_TRUE(std::filesystem::exists(dir_.File("two") + "/export"));
}

TEST_F(TrainMpiTest, TheDemosJobReachesTheDemosAccuracyOnTwoRanks) {
  // examples/jobs/demo.pbtxt as it is (batch 32 per rank: a global batch
  // of 64, half the steps), in the demo's folder; the demo's accuracy on
  // its 400 validation samples, within 2 of them.
  const std::string job = (std::filesystem::current_path() / "examples/jobs/demo.pbtxt").string();
  CliProcess demo(SLUICE_CLI_PATH, {"demo", "--dir", dir_.File("demo")}, true);
  const Outcome demo_run = Finish(demo);
  ASSERT_EQ(demo_run.status, 0) << demo_run.output;
  const size_t at = demo_run.output.rfind("Validation accuracy ");
  ASSERT_NE(at, std::string::npos) << demo_run.output;
  const double demo_accuracy = std::stod(demo_run.output.substr(at + 20));
  const std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(dir_.File("demo"));  // the job's data paths are relative to it
  const Outcome two = Train(2, {"train", job});
  std::filesystem::current_path(here);
  ASSERT_EQ(two.status, 0) << two.output;
  const size_t last = two.output.rfind("val_accuracy ");
  ASSERT_NE(last, std::string::npos) << two.output;
  EXPECT_GE(std::stod(two.output.substr(last + 13)), demo_accuracy - 2.0 / 400) << two.output;
}

TEST_F(TrainMpiTest, UnevenShardsEndEachPassOnEveryRankAtOnce) {
  // 1600 samples in 67 batches of 24 (the last of 16): rank 0 holds 34,
  // rank 1 33. Every pass ends after 33 steps on both ranks.
  const Outcome uneven = Train(2, {"train", Job("uneven", Spec("train", 24), 2)});
  ASSERT_EQ(uneven.status, 0) << uneven.output;
  EXPECT_EQ(Count(uneven.output, "epoch 1: 33 steps"), 1u) << uneven.output;
  EXPECT_EQ(Count(uneven.output, "epoch 2: 33 steps"), 1u) << uneven.output;
}

TEST_F(TrainMpiTest, ResumedRanksContinueAsAnUninterruptedRun) {
  // 3 epochs of 10 steps: each rank's input carries over between epochs, so
  // a resumed rank must continue from its own position.
  const std::string train = Spec("train", 16);
  const Outcome whole = Train(2, {"train", Job("whole", train, 3, 10)});
  ASSERT_EQ(whole.status, 0) << whole.output;
  const Outcome first = Train(2, {"train", Job("parts", train, 2, 10)});
  ASSERT_EQ(first.status, 0) << first.output;
  std::filesystem::remove_all(dir_.File("parts") + "/export");  // the first part exported
  const Outcome alone = Train(1, {"train", Job("parts", train, 3, 10), "--resume"});
  EXPECT_EQ(alone.status, 1) << alone.output;
  EXPECT_NE(alone.output.find("saved by a job of 2 ranks"), std::string::npos) << alone.output;
  const Outcome rest = Train(2, {"train", Job("parts", train, 3, 10), "--resume"});
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_EQ(Count(rest.output, "Resumed from "), 1u) << rest.output;
  EXPECT_EQ(Count(rest.output, "epoch 3: 10 steps"), 1u) << rest.output;
  EXPECT_EQ(LargestDifference(Latest("whole"), Latest("parts")), 0.0f);
}

TEST_F(TrainMpiTest, ARankThatFailsEndsTheJobSayingWhy) {
  // 64 samples; the second batch of 16, rank 1's first, has a label beyond
  // the 2 classes: rank 1 fails in its first step while rank 0 waits in the
  // all-reduce, and aborts the job.
  const std::string data = dir_.File("labels.jsonl");
  {
    std::ofstream lines(data);
    for (int i = 0; i < 64; ++i) {
      lines << "{\"features\": [" << i << ".5, 1.5], \"label\": " << (i >= 16 && i < 32 ? 9 : i % 2) << "}\n";
    }
  }
  CliProcess write(SLUICE_CLI_PATH, {"tfrecord", "write", "--input", data, "--output", dir_.File("labels.tfrecord")},
                   true);
  ASSERT_EQ(Finish(write).status, 0);
  const std::string spec = dir_.File("labels.pbtxt");
  std::ofstream(spec) << "ops { list_files { patterns: \"" << dir_.File("labels.tfrecord") << "\" shuffle: false } }\n"
                      << "ops { interleave { function { ops { element_source { kind: TFRECORD } } } } }\n"
                      << "ops { map { fn { parse_example { features { key: \"features\" dtype: \"float32\" shape: "
                         "2 } features { key: \"label\" dtype: \"int64\" } } } } }\n"
                      << "ops { batch { batch_size: 16 } }\n";
  const std::string job = dir_.File("labels_job.pbtxt");
  std::ofstream(job) << "input { train: \"" << spec << "\" }\n"
                     << "model { input { name: \"features\" dtype: \"float32\" shape: 2 }\n"
                     << "  layers { name: \"logits\" dense { units: 2 } } }\n"
                     << "loss { sparse_categorical_crossentropy { from_logits: true } }\n"
                     << "optimizer { learning_rate { constant: 0.1 } sgd {} }\n";
  const auto start = std::chrono::steady_clock::now();
  const Outcome failed = Train(2, {"train", job});
  EXPECT_EQ(failed.status, 1) << failed.output;
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(60)) << failed.output;
  EXPECT_NE(failed.output.find("sluice train: MPI rank 1 of 2: "), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("label 9 in row 0 is outside the valid range [0, 2)"), std::string::npos)
      << failed.output;
}

TEST_F(TrainMpiTest, AKilledRankEndsTheJobWithAnError) {
  Mpirun mpirun(2, {"train", Job("killed", Spec("train", 16, /*repeat=*/true), 1, int64_t{1} << 30)});
  pid_t rank0 = -1;
  pid_t rank1 = -1;
  for (int tries = 0; tries < 300 && (rank0 <= 0 || rank1 <= 0); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rank0 = mpirun.RankPid(0);
    rank1 = mpirun.RankPid(1);
  }
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank1, 0);
  std::this_thread::sleep_for(seconds(1));  // well into training
  kill(rank1, SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  std::string output;
  while (std::optional<std::string> line = mpirun.process().ReadLine(seconds(30))) output += *line + "\n";
  const std::optional<int> status = mpirun.process().Wait(seconds(10));
  ASSERT_TRUE(status.has_value()) << "mpirun still runs 40 s after a rank was killed";
  EXPECT_NE(*status, 0) << output;
  EXPECT_LT(std::chrono::steady_clock::now() - killed, seconds(30)) << output;
  EXPECT_TRUE(service::StopsWithin(rank0, seconds(10)));
  EXPECT_FALSE(std::filesystem::exists(dir_.File("killed") + "/export"));
}

}  // namespace
}  // namespace sluice
