// Runs the real `hrw` binary for CLI tests (through the cross-compiling emulator when there
// is one) and captures its exit code, stdout and stderr.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "test_paths.hpp"

namespace hrw::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// args exclude the program name. `input` is fed on stdin (empty: /dev/null-like).
CliResult run_hrw(const std::vector<std::string>& args, const std::string& input = "");
// run_hrw with NAME=VALUE entries set in the child's environment only (the test process
// keeps its own).
CliResult run_hrw_with_env(const std::vector<std::string>& args, const std::string& input,
                           const std::vector<std::string>& env);

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes `content` to path()/name and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

// The argv that runs `hrw ARGS...`: the cross-compiling emulator's words (if any), the CLI's
// path, then `args`. For tests that fork and exec hrw themselves.
std::vector<std::string> hrw_argv(const std::vector<std::string>& args);

// How start_hrw sets up the child. The child is started with posix_spawn: nothing runs in it
// between fork and exec, so a lock another test thread held at the fork cannot hang it
// (a forked child that calls freopen, putenv or malloc can, and did under qemu).
struct SpawnOptions {
  int stdin_fd = -1;              // dup'ed onto 0 when >= 0
  std::string stdin_path;         // else opened read-only onto 0 when not empty
  std::string stdout_path;        // created (truncated) onto 1 when not empty
  std::string stderr_path;        // created (truncated) onto 2 when not empty
  std::vector<int> close_fds;     // closed in the child (the test's ends of its pipes)
  std::vector<std::string> env;   // NAME=VALUE set (or replaced) in the child's environment
  int ignored_signal = 0;         // ignored in the child from its start (nohup): via `sh -c trap`
  int cpu = -1;                   // the child and its threads run on this core alone (taskset)
};

// Starts `hrw ARGS...` (hrw_argv) in a child process and returns its pid without waiting.
// For tests that watch a run.
pid_t start_hrw(const std::vector<std::string>& args, const SpawnOptions& options = {});

// The names in a folder, sorted.
std::vector<std::string> names(const std::string& dir);

// The temp tree a plan into OUT is built in, `.NAME.tmp-PID-XXXXXX` beside it (docs/plan.md,
// "Publication"), or "" when there is none.
std::string plan_build_dir(const std::string& out);

// Starts `hrw plan --from FROM --to TO --keys - --chunk-size 100 --out OUT` fed through a
// pipe, waits (up to 30 s) until its two temp files exist (in plan_build_dir(OUT)), sends `sig`, then closes the
// pipe and waits for it. `ignored_at_start`: the signal is ignored in hrw's parent (nohup).
struct SignalledRun {
  bool mid_way = false;  // the temp files existed when the signal was sent
  int exit_code = -1;    // the exit status; 1000 + 128 + signal when a signal killed it
};
SignalledRun signal_plan_mid_run(const std::string& from, const std::string& to,
                                 const std::string& out, int sig, bool ignored_at_start);

}  // namespace hrw::test
