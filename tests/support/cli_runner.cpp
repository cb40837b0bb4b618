#include "cli_runner.hpp"

#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hrw::test {

namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hrw-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  const std::string p = file(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::vector<std::string> hrw_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = split_words(kCliEmulator);
  argv.push_back(kCliPath);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

namespace {

// RAII for posix_spawn's two attribute objects.
struct SpawnActions {
  posix_spawn_file_actions_t actions;
  SpawnActions() { posix_spawn_file_actions_init(&actions); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
};

// The child's environment: this process's, with `extra` NAME=VALUE entries set or replaced.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    const bool replaced = std::any_of(extra.begin(), extra.end(),
                                      [&](const std::string& x) { return x.rfind(name, 0) == 0; });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t start_hrw(const std::vector<std::string>& args, const SpawnOptions& options) {
  std::vector<std::string> argv = hrw_argv(args);
  // Dispositions and affinity are set by small native programs that exec hrw (or its
  // emulator): posix_spawn has no attribute for SIG_IGN or a CPU set.
  if (options.ignored_signal != 0)
    argv.insert(argv.begin(), {"sh", "-c", "trap '' " + std::to_string(options.ignored_signal) + "; exec \"$@\"", "sh"});
  if (options.cpu >= 0) argv.insert(argv.begin(), {"taskset", "-c", std::to_string(options.cpu)});
  std::vector<std::string> env = child_environment(options.env);
  SpawnActions fa;
  if (options.stdin_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa.actions, options.stdin_fd, 0);
  else if (!options.stdin_path.empty())
    posix_spawn_file_actions_addopen(&fa.actions, 0, options.stdin_path.c_str(), O_RDONLY, 0);
  const int created = O_WRONLY | O_CREAT | O_TRUNC;
  if (!options.stdout_path.empty())
    posix_spawn_file_actions_addopen(&fa.actions, 1, options.stdout_path.c_str(), created, 0644);
  if (!options.stderr_path.empty())
    posix_spawn_file_actions_addopen(&fa.actions, 2, options.stderr_path.c_str(), created, 0644);
  for (int fd : options.close_fds) posix_spawn_file_actions_addclose(&fa.actions, fd);
  std::vector<char*> cargv = c_strings(argv), cenv = c_strings(env);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, cargv[0], &fa.actions, nullptr, cargv.data(), cenv.data());
  if (rc != 0) throw std::runtime_error("posix_spawnp " + argv[0] + " failed: " + std::strerror(rc));
  return pid;
}

CliResult run_hrw(const std::vector<std::string>& args, const std::string& input) {
  return run_hrw_with_env(args, input, {});
}

CliResult run_hrw_with_env(const std::vector<std::string>& args, const std::string& input,
                           const std::vector<std::string>& env) {
  TempDir io;
  SpawnOptions options;
  options.stdin_path = io.write("stdin", input);
  options.stdout_path = io.file("stdout");
  options.stderr_path = io.file("stderr");
  options.env = env;
  const pid_t pid = start_hrw(args, options);
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(options.stdout_path);
  r.err = read_file(options.stderr_path);
  return r;
}

std::vector<std::string> names(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string plan_build_dir(const std::string& out) {
  const std::filesystem::path p(out);
  const std::string prefix = "." + p.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path(), ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0 && e.is_directory()) return e.path().string();
  return "";
}

SignalledRun signal_plan_mid_run(const std::string& from, const std::string& to,
                                 const std::string& out, int sig, bool ignored_at_start) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  TempDir logs;
  SpawnOptions options;
  options.stdin_fd = pipe_fds[0];
  options.close_fds = {pipe_fds[1]};
  options.stderr_path = logs.file("stderr");  // not read: only the exit status matters
  options.ignored_signal = ignored_at_start ? sig : 0;
  const pid_t pid =
      start_hrw({"plan", "--from", from, "--to", to, "--keys", "-", "--chunk-size", "100", "--out", out}, options);
  close(pipe_fds[0]);
  std::string keys;
  for (int i = 0; i < 5000; ++i) keys += "user:" + std::to_string(i) + "\n";
  SignalledRun run;
  if (write(pipe_fds[1], keys.data(), keys.size()) == static_cast<ssize_t>(keys.size())) {
    for (int i = 0; i < 600 && !run.mid_way; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::string build = plan_build_dir(out);
      run.mid_way = !build.empty() && names(build).size() == 4;  // moves, summary, from.json, to.json
    }
  }
  kill(pid, sig);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  close(pipe_fds[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status) + 1000;
  return run;
}

}  // namespace hrw::test
