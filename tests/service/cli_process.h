// CliProcess: a `sluice` CLI child process (SLUICE_CLI_PATH), or a program
// that runs it (mpirun), for the data service's process tests: its stdout
// is read line by line with a bounded wait (the roles print "... listening
// on HOST:PORT"), and it is killed and reaped when the object goes, so no
// test leaves a child behind.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace sluice::service {

class CliProcess {
 public:
  // `sluice` with `arguments`.
  explicit CliProcess(const std::vector<std::string>& arguments) : CliProcess(SLUICE_CLI_PATH, arguments) {}
  // `program` (a path) with `arguments`; with `merge_stderr`, its stderr is
  // read with its stdout.
  CliProcess(const std::string& program, const std::vector<std::string>& arguments, bool merge_stderr = false) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    std::vector<std::string> argv_strings = {program};
    argv_strings.insert(argv_strings.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      if (merge_stderr) dup2(out[1], STDERR_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_ = out[0];
  }
  ~CliProcess() {
    Signal(SIGKILL);
    Wait(std::chrono::seconds(10));
    if (stdout_ >= 0) close(stdout_);
  }
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  void Signal(int signal) {
    if (pid_ > 0 && !exited_) kill(pid_, signal);
  }

  // The next line of its stdout, or nullopt at EOF or after `timeout`.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const size_t newline = pending_.find('\n');
      if (newline != std::string::npos) {
        std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || stdout_ < 0) return std::nullopt;
      pollfd fd{.fd = stdout_, .events = POLLIN, .revents = 0};
      if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(stdout_, buffer, sizeof(buffer));
      if (n <= 0) return std::nullopt;
      pending_.append(buffer, static_cast<size_t>(n));
    }
  }

  // The address in its "<role> listening on HOST:PORT" line.
  std::optional<std::string> ReadAddress(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::optional<std::string> line = ReadLine(timeout);
    if (!line.has_value()) return std::nullopt;
    const std::string marker = " listening on ";
    const size_t at = line->find(marker);
    if (at == std::string::npos) return std::nullopt;
    return line->substr(at + marker.size());
  }

  // Its exit status (-1 for a signal) once it exits within `timeout`.
  std::optional<int> Wait(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return std::nullopt;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited_) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exited_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      usleep(10000);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
  std::string pending_;
  bool exited_ = false;
  int status_ = -1;
};

}  // namespace sluice::service
