// The threads a bulk command runs on (tools/hrw/thread_pool.hpp): with more than one, oneTBB's
// workers are started as soon as the command starts, before its first chunk is read, with
// the cores the process may run on; with one, none is started.
#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "cli_runner.hpp"

using hrw::test::TempDir;

namespace {

struct Seen {
  std::size_t threads = 0;
  std::set<std::string> cores;  // the distinct core lists (Cpus_allowed_list) of the threads
};

// A process's threads and their core lists, in one walk of /proc/PID/task.
Seen threads_of(pid_t pid) {
  Seen seen;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    ++seen.threads;
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) seen.cores.insert(line);
  }
  return seen;
}

// Starts `hrw place --keys - --threads THREADS` on a pipe it sends nothing to, so that the run
// waits for its first chunk (on `core` alone when it is not -1). Once `done(threads of the
// run)` holds (or after 10 s), closes the pipe, waits for the run and returns the last thread
// count seen, with its threads' cores then.
template <class Done>
Seen threads_while_waiting_for_keys(const TempDir& dir, const std::string& cluster, unsigned threads, Done done,
                                    int core = -1) {
  const std::string out = dir.file("out-" + std::to_string(threads) + ".csv");
  // Listed before the run starts: it may make its temp output before this thread runs again.
  const std::size_t files_before = hrw::test::names(dir.path()).size();
  int to_hrw[2];
  REQUIRE(pipe(to_hrw) == 0);
  hrw::test::SpawnOptions options;
  options.stdin_fd = to_hrw[0];
  options.close_fds = {to_hrw[1]};
  options.cpu = core;
  const pid_t pid = hrw::test::start_hrw(
      {"place", "--cluster", cluster, "--keys", "-", "--out", out, "--threads", std::to_string(threads), "--quiet"},
      options);
  close(to_hrw[0]);
  Seen seen;
  bool waiting = false;  // the output's temp file exists: the run is past its views
  for (int i = 0; i < 500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    waiting = waiting || hrw::test::names(dir.path()).size() > files_before;
    seen = threads_of(pid);
    if (waiting && done(seen.threads)) break;
  }
  close(to_hrw[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(waiting);
  return seen;
}

}  // namespace

TEST_CASE("cli: oneTBB's workers start before the first chunk, and only for more than one thread",
          "[cli][threads]") {
  TempDir dir;
  const std::string cluster = dir.write("c.json", R"({"nodes": ["a", "b", "c"]})");
  // One thread: the process's own threads (an emulator may add some), after a while.
  int polls = 0;
  const std::size_t one =
      threads_while_waiting_for_keys(dir, cluster, 1, [&](std::size_t) { return ++polls == 10; }).threads;
  // Two: the one worker oneTBB adds, started although no key has been read (the thread that
  // started it has finished). The thread that started it began on the other cores only; the
  // worker has every core the process has, as every other thread.
  const Seen two = threads_while_waiting_for_keys(dir, cluster, 2, [&](std::size_t n) { return n == one + 1; });
  CHECK(two.threads == one + 1);
  CHECK(two.cores.size() == 1);
  // On one core there is no other core to begin on, and oneTBB adds no worker there: the
  // run goes on without one.
  int polls_on_one = 0;
  const Seen on_one_core = threads_while_waiting_for_keys(
      dir, cluster, 2, [&](std::size_t) { return ++polls_on_one == 10; }, sched_getcpu());
  CHECK(on_one_core.threads == one);
  CHECK(on_one_core.cores.size() == 1);
}
