#include "sluice/model/job.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

// 8 examples of features [2] and a label x0 > x1, in batches of 4.
constexpr const char* kDataSpec = R"(
ops {
  from_slices {
    components {
      name: "features"
      tensor { dtype: "float32" shape: [8, 2]
               float_values: [1, 0, 0, 1, 2, 1, 1, 2, 3, 0, 0, 3, 0.5, 0, 0, 0.5] }
    }
    components { name: "label" tensor { dtype: "int64" shape: [8] int_values: [1, 0, 1, 0, 1, 0, 1, 0] } }
  }
}
ops { batch { batch_size: 4 } }
)";

// A job over kDataSpec with `epochs` epochs and `extra` text, its paths
// under `dir`.
std::string JobText(const testing::TempDir& dir, int epochs, const std::string& extra = "") {
  return R"(
input { train: "data.pbtxt" validation: "data.pbtxt" }
model {
  input { name: "features" dtype: "float32" shape: 2 }
  layers { name: "hidden" dense { units: 4 activation: "relu" } }
  layers { name: "logits" dense { units: 1 } }
}
seed: 3
loss { binary_crossentropy { from_logits: true } }
optimizer { learning_rate { constant: 0.05 } sgd { momentum: 0.5 } }
metrics { name: "accuracy" binary_accuracy { from_logits: true } }
metrics { auc { from_logits: true } }
checkpoint { directory: ")" + dir.File("checkpoints") + R"(" }
epochs: )" + std::to_string(epochs) + "\n" + extra;
}

std::string Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

Result<JobResult> RunJob(const std::string& job_path, bool resume = false) {
  SLUICE_ASSIGN_OR_RETURN(model::TrainingJob job, ReadTrainingJob(job_path));
  return RunTrainingJob(job, {.resume = resume});
}

TEST(JobTest, RunsAndResumesExactlyWhereItStopped) {
  testing::TempDir whole, split;
  Write(whole.File("data.pbtxt"), kDataSpec);
  Write(split.File("data.pbtxt"), kDataSpec);
  Result<JobResult> uninterrupted = RunJob(Write(whole.File("job.pbtxt"), JobText(whole, 3)));
  ASSERT_TRUE(uninterrupted.ok()) << uninterrupted.status();
  ASSERT_EQ(uninterrupted->history.size(), 3u);
  EXPECT_EQ(uninterrupted->epochs_done, 3);
  EXPECT_TRUE(uninterrupted->history.back().values.contains("val_accuracy"));
  EXPECT_TRUE(uninterrupted->history.back().values.contains("auc"));

  // One epoch, then the same job asked for three, resumed.
  ASSERT_TRUE(RunJob(Write(split.File("job.pbtxt"), JobText(split, 1))).ok());
  Result<JobResult> resumed = RunJob(Write(split.File("job.pbtxt"), JobText(split, 3)), /*resume=*/true);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  ASSERT_EQ(resumed->history.size(), 2u);
  EXPECT_EQ(resumed->epochs_done, 3);
  EXPECT_EQ(resumed->history.back().values, uninterrupted->history.back().values);

  // Done already: nothing to train.
  Result<JobResult> again = RunJob(split.File("job.pbtxt"), /*resume=*/true);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->history.empty());
  EXPECT_EQ(again->epochs_done, 3);
}

TEST(JobTest, CheckpointsOfAnotherRunAreNotMixedIn) {
  testing::TempDir dir;
  Write(dir.File("data.pbtxt"), kDataSpec);
  const std::string job = Write(dir.File("job.pbtxt"), JobText(dir, 1));
  ASSERT_TRUE(RunJob(job).ok());
  const Status again = RunJob(job).status();
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition) << again;
  EXPECT_NE(again.message().find("already holds checkpoints"), std::string::npos) << again;
  EXPECT_NE(again.message().find("--resume"), std::string::npos) << again;
}

TEST(JobTest, ExportsTheTrainedModelIntoANewDirectory) {
  testing::TempDir dir;
  Write(dir.File("data.pbtxt"), kDataSpec);
  const std::string export_dir = dir.File("exported");
  const std::string job =
      Write(dir.File("job.pbtxt"), JobText(dir, 1, "export_directory: \"" + export_dir + "\"\n"));
  Result<JobResult> result = RunJob(job);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->export_directory, export_dir);
  EXPECT_TRUE(std::filesystem::exists(export_dir + "/graph.pb"));
  std::filesystem::remove_all(dir.File("checkpoints"));
  const Status exists = RunJob(job).status();
  EXPECT_EQ(exists.code(), StatusCode::kFailedPrecondition) << exists;
  EXPECT_NE(exists.message().find("export directory '" + export_dir + "' already exists"), std::string::npos)
      << exists;
}

TEST(JobTest, SpecPathsAreRelativeToTheJobFile) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("jobs"));
  Result<model::TrainingJob> job = ReadTrainingJob(Write(dir.File("jobs/job.pbtxt"), JobText(dir, 1)));
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->input().train(), dir.File("jobs/data.pbtxt"));
  EXPECT_EQ(job->input().validation(), dir.File("jobs/data.pbtxt"));
}

// Each broken job names the file, the field and what is wrong.
TEST(JobTest, InvalidJobsNameTheFieldAndWhy) {
  testing::TempDir dir;
  const std::string valid = JobText(dir, 1);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = valid;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const std::string path = dir.File("job.pbtxt");
  const struct {
    std::string text;
    std::string error;
  } cases[] = {
      {replaced("input { train: \"data.pbtxt\" validation: \"data.pbtxt\" }", ""),
       "'" + path + "': input.train: required"},
      {replaced("loss { binary_crossentropy { from_logits: true } }", ""), "'" + path + "': loss: required"},
      {replaced("momentum: 0.5", "momentum: 1.5"), "optimizer.sgd.momentum: must be in [0, 1)"},
      {replaced("constant: 0.05", "constant: -1"), "optimizer.learning_rate.constant: must be > 0"},
      {replaced("learning_rate { constant: 0.05 }", ""), "optimizer.learning_rate: required"},
      {replaced("sgd { momentum: 0.5 }", ""), "optimizer: required: sgd or adam"},
      {replaced("metrics { auc { from_logits: true } }", "metrics { name: \"m\" }"),
       "metrics[1]: no kind set"},
      {replaced("auc { from_logits: true }", "auc { num_thresholds: 1 }"),
       "metrics[1]: auc.num_thresholds must be in [2, "},
      {replaced("binary_accuracy { from_logits: true }", "binary_accuracy { from_logits: true threshold: 1 }"),
       "metrics[0]: threshold must be in (0, 1) with from_logits"},
      {replaced("epochs: 1", "epochs: -2"), "epochs: must be in [1, 1000000]"},
      {replaced("dtype: \"float32\" shape: 2", "dtype: \"complex\" shape: 2"), "model.input.dtype: "},
      {replaced("epochs: 1", "epochs: x"), "cannot parse training job: " + path + ":"},
      {replaced("epochs: 1", "epoch: 1"), "no field named \"epoch\""},
  };
  for (const auto& c : cases) {
    Result<model::TrainingJob> job = ReadTrainingJob(Write(path, c.text));
    EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument) << c.error << ": " << job.status();
    EXPECT_NE(job.status().message().find(c.error), std::string::npos) << job.status();
  }
  EXPECT_EQ(ReadTrainingJob(dir.File("none.pbtxt")).status().code(), StatusCode::kNotFound);
  const Status endless = ReadTrainingJob("/dev/zero").status();
  EXPECT_NE(endless.message().find("larger than the limit of 1048576 bytes (kMaxJobBytes)"), std::string::npos)
      << endless;
}

TEST(JobTest, ALayerTooWideIsRefusedBeforeItIsBuilt) {
  testing::TempDir dir;
  Write(dir.File("data.pbtxt"), kDataSpec);
  std::string text = JobText(dir, 1);
  text.replace(text.find("units: 4"), 8, "units: 99999999999");
  Result<model::TrainingJob> job = ReadTrainingJob(Write(dir.File("job.pbtxt"), text));
  ASSERT_TRUE(job.ok()) << job.status();
  const Status status = RunTrainingJob(*job, {}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("Dense 'hidden': units must be in [1, 1048576], got 99999999999"),
            std::string::npos)
      << status;
}

TEST(JobTest, ResumeNeedsACheckpointDirectory) {
  testing::TempDir dir;
  Write(dir.File("data.pbtxt"), kDataSpec);
  std::string text = JobText(dir, 1);
  text.replace(text.find("checkpoint {"), text.find("epochs:") - text.find("checkpoint {"), "");
  const Status status = RunJob(Write(dir.File("job.pbtxt"), text), /*resume=*/true).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("--resume needs the job's checkpoint.directory"), std::string::npos) << status;
}

}  // namespace
}  // namespace sluice
