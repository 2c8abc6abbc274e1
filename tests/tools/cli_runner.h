// Runs the built `sluice` binary (SLUICE_CLI_PATH) and captures its output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {

struct CliResult {
  int exit_code = -1;
  std::vector<std::string> lines;  // of stdout, or of stderr with capture_stderr
};

// With `capture_stderr`, stdout goes to `stdout_to` (e.g. "/dev/full").
inline CliResult RunCli(const std::string& arguments, bool capture_stderr = false,
                        const std::string& stdout_to = "/dev/null") {
  const std::string command = std::string(SLUICE_CLI_PATH) + " " + arguments +
                              (capture_stderr ? " 2>&1 >" + stdout_to : " 2>/dev/null");
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed for " << command;
    return result;
  }
  std::string output;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) result.lines.push_back(line);
  return result;
}

using Lines = std::vector<std::string>;

// Writes a spec to a temporary file named after the running test and
// `name`, and returns its path.
inline std::string WriteSpec(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace sluice
