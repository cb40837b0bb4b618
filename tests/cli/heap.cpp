// The CLI's malloc policy (tools/hrw/heap.hpp): the heap a running hrw allocates from is
// advised for transparent huge pages, and the command's output is unchanged by it.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"

using hrw::test::TempDir;

namespace {

// The VmFlags of every [heap] mapping of `pid` with at least 2 MiB, from /proc/PID/smaps.
std::vector<std::string> big_heap_flags(pid_t pid) {
  std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
  std::vector<std::string> flags;
  std::string line;
  bool heap = false, big = false;
  while (std::getline(smaps, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.find('-') != std::string::npos && first.back() != ':') {  // a mapping's header
      heap = line.find("[heap]") != std::string::npos;
      big = false;
    } else if (first == "Size:") {
      std::uint64_t kb = 0;
      words >> kb;
      big = kb >= 2048;
    } else if (first == "VmFlags:" && heap && big) {
      flags.push_back(line);
    }
  }
  return flags;
}

bool kernel_has_thp() { return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"); }

}  // namespace

// A sanitizer's allocator replaces glibc's heap (the policy then does nothing) and an
// emulator's heap is its own: there the advice cannot be seen, and this case is not built
// (ctest lists it only where it checks something).
#if !defined(HRW_TEST_SANITIZED) && !defined(HRW_TEST_EMULATED)
TEST_CASE("cli: a running hrw allocates from a heap advised for huge pages", "[cli][heap]") {
  if (!kernel_has_thp()) FAIL("this kernel offers no transparent huge pages: the heap's advice cannot be checked");
  TempDir dir;
  const std::string cluster = dir.write("c.json", R"({"nodes": ["a", "b", "c"]})");
  const std::string out = dir.file("out.csv");
  int to_hrw[2];
  REQUIRE(pipe(to_hrw) == 0);
  hrw::test::SpawnOptions options;
  options.stdin_fd = to_hrw[0];
  options.close_fds = {to_hrw[1]};  // hrw sees the end of its input when this test closes its end
  const pid_t pid =
      hrw::test::start_hrw({"place", "--cluster", cluster, "--keys", "-", "--out", out, "--quiet"}, options);
  close(to_hrw[0]);
  // hrw waits for its keys on the pipe once its output's temp file exists: main has run by then.
  std::vector<std::string> flags;
  for (int i = 0; i < 600 && flags.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (hrw::test::names(dir.path()).size() == 2) flags = big_heap_flags(pid);
  }
  const std::string keys = "k1\nk2\nk3\n";
  REQUIRE(write(to_hrw[1], keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()));
  close(to_hrw[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE_FALSE(flags.empty());
  const bool advised = std::any_of(flags.begin(), flags.end(),
                                   [](const std::string& f) { return f.find(" hg") != std::string::npos; });
  CHECK(advised);
}
#endif

TEST_CASE("cli: place writes the same rows to a file as to stdout", "[cli][heap]") {
  TempDir dir;
  const std::string cluster = dir.write("c.json", R"({"nodes": ["a", "b", "c"]})");
  const std::string keys = "k1\nk2\nk3\n";
  const auto to_file = hrw::test::run_hrw(
      {"place", "--cluster", cluster, "--keys", dir.write("k.txt", keys), "--out", dir.file("out.csv"), "--quiet"});
  REQUIRE(to_file.exit_code == 0);
  const auto to_stdout = hrw::test::run_hrw({"place", "--cluster", cluster, "--keys", "-", "--quiet"}, keys);
  REQUIRE(to_stdout.exit_code == 0);
  CHECK(hrw::test::read_file(dir.file("out.csv")) == to_stdout.out);
  CHECK(to_stdout.out.find("k1") != std::string::npos);
}
