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

// Each [heap] mapping of `pid`, in address order, from /proc/PID/smaps.
struct HeapMapping {
  std::uint64_t size_kb = 0, rss_kb = 0;
  bool advised = false;  // VmFlags has hg (MADV_HUGEPAGE)
};
std::vector<HeapMapping> heap_mappings(pid_t pid) {
  std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
  std::vector<HeapMapping> heap;
  std::string line;
  bool in_heap = false;
  while (std::getline(smaps, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.find('-') != std::string::npos && first.back() != ':') {  // a mapping's header
      in_heap = line.find("[heap]") != std::string::npos;
      if (in_heap) heap.emplace_back();
    } else if (in_heap && first == "Size:") {
      words >> heap.back().size_kb;
    } else if (in_heap && first == "Rss:") {
      words >> heap.back().rss_kb;
    } else if (in_heap && first == "VmFlags:") {
      heap.back().advised = (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return heap;
}

bool kernel_has_thp() { return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"); }

}  // namespace

TEST_CASE("cli: a running hrw allocates from a heap advised for huge pages", "[cli][heap]") {
  // Where the advice cannot be seen: a sanitizer's allocator replaces glibc's heap (the
  // policy then does nothing), an emulator's heap is its own, a kernel may have no THP.
#ifdef HRW_TEST_SANITIZED
  const bool sanitized = true;
#else
  const bool sanitized = false;
#endif
  const bool visible = !sanitized && std::string(HRW_CLI_EMULATOR).empty() && kernel_has_thp();
  TempDir dir;
  const std::string cluster = dir.write("c.json", R"({"nodes": ["a", "b", "c"]})");
  const std::string out = dir.file("out.csv");
  int to_hrw[2];
  REQUIRE(pipe(to_hrw) == 0);
  const pid_t pid = hrw::test::start_hrw({"place", "--cluster", cluster, "--keys", "-", "--out", out, "--quiet"}, [&] {
    dup2(to_hrw[0], 0);
    close(to_hrw[1]);  // hrw sees the end of its input when this test closes its end
  });
  close(to_hrw[0]);
  // hrw waits for its keys on the pipe once its output's temp file exists: main has run by then.
  std::vector<HeapMapping> heap;
  for (int i = 0; i < 600 && visible && heap.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (hrw::test::names(dir.path()).size() == 2) heap = heap_mappings(pid);
  }
  const std::string keys = "k1\nk2\nk3\n";
  REQUIRE(write(to_hrw[1], keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()));
  close(to_hrw[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  if (visible) {
    REQUIRE_FALSE(heap.empty());
    const auto advised = std::find_if(heap.begin(), heap.end(), [](const HeapMapping& m) { return m.advised; });
    REQUIRE(advised != heap.end());
    CHECK(advised->size_kb >= 2048);
    // The heap below its first 2 MiB boundary cannot be a huge page: what main allocates
    // (CLI11's options, the views) is kept out of it, so only what was allocated before
    // main is there (24 KiB when measured; 192 KiB, page by page, before the filler).
    std::uint64_t below_kb = 0;
    for (auto m = heap.begin(); m != advised; ++m) below_kb += m->rss_kb;
    CHECK(below_kb <= 96);
  }
  // The policy changes where memory comes from, never what is written.
  const auto again = hrw::test::run_hrw({"place", "--cluster", cluster, "--keys", "-", "--quiet"}, keys);
  CHECK(hrw::test::read_file(out) == again.out);
}
