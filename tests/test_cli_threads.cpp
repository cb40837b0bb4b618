// The threads a bulk command runs on (tools/hrw/thread_pool.hpp): with more than one, oneTBB's
// workers are started as soon as the command starts, before its first chunk is read;
// with one, none is started.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli_runner.hpp"

using hrw::test::TempDir;

namespace {

std::size_t threads_of(pid_t pid) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task"))
    ++n;
  return n;
}

// Starts `hrw place --keys - --threads THREADS` on a pipe it sends nothing to, so that the run
// waits for its first chunk. Once `done(threads of the run)` holds (or after 10 s), closes
// the pipe, waits for the run and returns the last thread count seen.
template <class Done>
std::size_t threads_while_waiting_for_keys(const TempDir& dir, const std::string& cluster, unsigned threads,
                                           Done done) {
  const std::string out = dir.file("out-" + std::to_string(threads) + ".csv");
  int to_hrw[2];
  REQUIRE(pipe(to_hrw) == 0);
  const pid_t pid = hrw::test::start_hrw(
      {"place", "--cluster", cluster, "--keys", "-", "--out", out, "--threads", std::to_string(threads), "--quiet"},
      [&] {
        dup2(to_hrw[0], 0);
        close(to_hrw[1]);
      });
  close(to_hrw[0]);
  const std::size_t files_before = hrw::test::names(dir.path()).size();
  std::size_t seen = 0;
  bool waiting = false;  // the output's temp file exists: the run is past its views
  for (int i = 0; i < 500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    waiting = waiting || hrw::test::names(dir.path()).size() > files_before;
    seen = threads_of(pid);
    if (waiting && done(seen)) break;
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
  const std::size_t one = threads_while_waiting_for_keys(dir, cluster, 1, [&](std::size_t) { return ++polls == 10; });
  // Two: the one worker oneTBB adds, started although no key has been read (the thread that
  // started it has finished).
  const std::size_t two = threads_while_waiting_for_keys(dir, cluster, 2, [&](std::size_t n) { return n == one + 1; });
  CHECK(two == one + 1);
}
