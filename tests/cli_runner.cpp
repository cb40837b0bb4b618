#include "cli_runner.hpp"

#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hrw::test {

CliResult run_hrw_with_env(const std::vector<std::string>& args, const std::string& input,
                           const std::vector<std::string>& env);

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
  std::vector<std::string> argv = split_words(HRW_CLI_EMULATOR);
  argv.push_back(HRW_CLI_PATH);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

pid_t start_hrw(const std::vector<std::string>& args, const std::function<void()>& in_child) {
  std::vector<std::string> argv = hrw_argv(args);
  std::vector<char*> cargv;
  for (auto& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (in_child) in_child();
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  return pid;
}

CliResult run_hrw(const std::vector<std::string>& args, const std::string& input) {
  return run_hrw_with_env(args, input, {});
}

// Declared where it is used (test_input_rules.cpp): `env` holds NAME=VALUE entries set in
// the child only, so the test process keeps its own environment (its temp dirs).
CliResult run_hrw_with_env(const std::vector<std::string>& args, const std::string& input,
                           const std::vector<std::string>& env) {
  TempDir io;
  const std::string in_path = io.write("stdin", input);
  const std::string out_path = io.file("stdout"), err_path = io.file("stderr");
  const pid_t pid = start_hrw(args, [&] {
    if (!freopen(in_path.c_str(), "rb", stdin) || !freopen(out_path.c_str(), "wb", stdout) ||
        !freopen(err_path.c_str(), "wb", stderr))
      _exit(127);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
  });
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
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
  const pid_t pid = start_hrw(
      {"plan", "--from", from, "--to", to, "--keys", "-", "--chunk-size", "100", "--out", out}, [&] {
        if (ignored_at_start) ::signal(sig, SIG_IGN);
        dup2(pipe_fds[0], 0);
        close(pipe_fds[1]);
        const int null = open("/dev/null", O_WRONLY);  // read side only: stderr discarded
        dup2(null, 2);
      });
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
