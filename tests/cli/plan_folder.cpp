// A plan folder is one publication (docs/plan.md, "Publication"): built complete in a temp
// sibling and swapped in as a unit, so it holds exactly the old plan or exactly the new one
// — never steps of an earlier plan, never a half-built step — and two runs into one folder
// never mix (an OS lock: the second is refused while the first publishes).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_scale.hpp"

using hrw::test::names;
using hrw::test::plan_build_dir;
using hrw::test::read_file;
using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using Names = std::vector<std::string>;

namespace {

std::string view_json(int version, int nodes, const std::string& extra = "") {
  std::string s = "{\"version\": " + std::to_string(version) + ", \"nodes\": [";
  for (int i = 0; i < nodes; ++i) s += (i ? ", \"n" : "\"n") + std::to_string(i) + "\"";
  if (!extra.empty()) s += ", \"" + extra + "\"";
  return s + "]}";
}

std::string key_lines(int n, const std::string& prefix = "user:") {
  std::string s;
  for (int i = 0; i < n; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

// Every file under `dir` (relative path -> bytes).
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    out[fs::relative(e.path(), dir).string()] = e.is_regular_file() ? read_file(e.path().string()) : "<dir>";
  return out;
}

struct Setup {
  TempDir dir;
  std::string a = dir.write("A.json", view_json(1, 10));
  std::string b = dir.write("B.json", view_json(100, 12));  // room for staged steps' versions
  std::string keys = dir.write("k.txt", key_lines(3000));
  std::string out = dir.file("p");
  std::vector<std::string> plan(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"plan", "--from", a, "--to", b, "--keys", keys, "--out", out, "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  void only_inputs_beside_none() const { CHECK(names(dir.path()) == Names{"A.json", "B.json", "k.txt"}); }
  // Nothing beside the plan folder but the inputs: no temp sibling, no lock file.
  void only_inputs_beside() const {
    CHECK(names(dir.path()) == Names{"A.json", "B.json", "k.txt", "p"});
  }
};

std::size_t steps_in_summary(const std::string& out) {
  return nlohmann::json::parse(read_file(out + "/summary.json"))["steps"].size();
}

Names step_names(std::size_t n) {
  Names v;
  for (std::size_t k = 1; k <= n; ++k) v.push_back((k < 10 ? "0" : "") + std::to_string(k));
  return v;
}

}  // namespace

TEST_CASE("plan folder: a 3-step plan over a 6-step one leaves no stale steps", "[cli][plan-folder]") {
  Setup s;
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.03"})).exit_code == 0);
  const std::size_t many = steps_in_summary(s.out);
  REQUIRE(many >= 5);
  CHECK(names(s.out + "/steps") == step_names(many));
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.07"})).exit_code == 0);
  const std::size_t few = steps_in_summary(s.out);
  REQUIRE(few < many);
  CHECK(names(s.out + "/steps") == step_names(few));
  for (const std::string& step : step_names(few))
    CHECK(names(s.out + "/steps/" + step) == Names{"from.json", "moves.csv", "summary.json", "to.json", "view.json"});
  CHECK(names(s.out) == Names{"steps", "summary.json"});
  s.only_inputs_beside();
}

TEST_CASE("plan folder: a folder in the way inside an old step does not stop the new plan",
          "[cli][plan-folder]") {
  Setup s;
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  REQUIRE(fs::exists(s.out + "/steps/03"));
  fs::remove(s.out + "/steps/03/moves.csv");
  fs::create_directories(s.out + "/steps/03/moves.csv/x");  // was: step 3 failed, steps 1-2 new
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  CHECK(fs::is_regular_file(s.out + "/steps/03/moves.csv"));
  CHECK(names(s.out + "/steps") == step_names(steps_in_summary(s.out)));
  s.only_inputs_beside();
}

TEST_CASE("plan folder: a plain plan over a staged one leaves no steps/", "[cli][plan-folder]") {
  Setup s;
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  REQUIRE(fs::exists(s.out + "/steps"));
  REQUIRE(run_hrw(s.plan()).exit_code == 0);
  CHECK(names(s.out) == Names{"from.json", "moves.csv", "summary.json", "to.json"});
  // ...and a staged one over a plain one with an SVG inside the folder leaves no SVG.
  REQUIRE(run_hrw(s.plan({"--svg", s.out + "/flows.svg"})).exit_code == 0);
  CHECK(names(s.out) == Names{"flows.svg", "from.json", "moves.csv", "summary.json", "to.json"});
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  CHECK(names(s.out) == Names{"steps", "summary.json"});
  s.only_inputs_beside();
  // --from-placement publishes the same way.
  const std::string cur = s.dir.write("cur.csv", "key,owner\nuser:1,n1\nuser:2,n2\n");
  REQUIRE(run_hrw({"plan", "--from-placement", cur, "--to", s.b, "--out", s.out, "--quiet"}).exit_code == 0);
  CHECK(names(s.out) == Names{"moves.csv", "summary.json", "to.json"});
  CHECK(read_file(s.out + "/summary.json").find("\"from_placement\"") != std::string::npos);
  CHECK(names(s.dir.path()) == Names{"A.json", "B.json", "cur.csv", "k.txt", "p"});
}

TEST_CASE("plan folder: an SVG outside the folder is published with it", "[cli][plan-folder]") {
  Setup s;
  const std::string svg = s.dir.file("flows.svg");
  REQUIRE(run_hrw(s.plan({"--svg", svg})).exit_code == 0);
  CHECK(names(s.out) == Names{"from.json", "moves.csv", "summary.json", "to.json"});
  CHECK_THAT(read_file(svg), Contains("<svg"));
}

TEST_CASE("plan folder: an SVG deeper inside the folder is refused", "[cli][plan-folder]") {
  Setup s;
  const auto r = run_hrw(s.plan({"--svg", s.out + "/charts/flows.svg"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hrw: " + s.out + "/charts/flows.svg: inside the plan folder " + s.out +
                     ", a file must be directly in it\n");
  CHECK_FALSE(fs::exists(s.out));
  s.only_inputs_beside_none();
}

TEST_CASE("plan folder: a folder holding other files is refused, untouched", "[cli][plan-folder]") {
  Setup s;
  fs::create_directories(s.out);
  const std::string notes = s.dir.write("p/notes.txt", "mine\n");
  const auto r = run_hrw(s.plan());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hrw: " + s.out +
                     ": holds \"notes.txt\", which no plan writes: give a new or empty folder, or one that "
                     "holds a plan\n");
  CHECK(names(s.out) == Names{"notes.txt"});
  s.only_inputs_beside();
  // The same for a staged plan and --from-placement.
  CHECK(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 2);
  const std::string cur = s.dir.write("cur.csv", "key,owner\nx,n1\n");
  CHECK(run_hrw({"plan", "--from-placement", cur, "--to", s.b, "--out", s.out}).exit_code == 2);
  CHECK(names(s.out) == Names{"notes.txt"});
  // A file in the way of the folder.
  const std::string file = s.dir.write("f", "x");
  const auto f = run_hrw({"plan", "--from", s.a, "--to", s.b, "--keys", s.keys, "--out", file});
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Contains("not a directory"));
  CHECK(read_file(file) == "x");
}

TEST_CASE("plan folder: a failed run into a new folder leaves nothing", "[cli][plan-folder]") {
  Setup s;
  const auto r = run_hrw({"plan", "--from", s.a, "--to", s.b, "--keys", s.dir.file("missing.txt"), "--out", s.out});
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(s.out));
  CHECK(names(s.dir.path()) == Names{"A.json", "B.json", "k.txt"});
}

TEST_CASE("plan folder: a full disk mid-write leaves the old plan intact", "[cli][plan-folder]") {
  Setup s;
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  const auto before = tree(s.out);
  // RLIMIT_FSIZE (5 KiB) makes writes fail with EFBIG, as a full disk fails them with ENOSPC;
  // SIGXFSZ ignored so that the write returns the error. The new plain moves.csv needs ~25 KB.
  const std::string cmd = "trap '' XFSZ; ulimit -f 10; exec " + std::string(hrw::test::kCliEmulator) + " " +
                          hrw::test::kCliPath + " plan --from " + s.a + " --to " + s.b + " --keys " + s.keys +
                          " --out " + s.out + " --quiet 2>/dev/null";
  const int status = std::system(("sh -c \"" + cmd + "\"").c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(tree(s.out) == before);
  s.only_inputs_beside();
}

TEST_CASE("plan folder: SIGTERM and SIGKILL during step k leave the old plan", "[cli][plan-folder]") {
  Setup s;
  // Enough keys for the steps to take a while (a tenth under qemu, which runs ~20x slower).
  s.keys = s.dir.write("k.txt", key_lines(static_cast<int>(hrw::test::scaled(300000, hrw::test::kEmulatedScale))));
  REQUIRE(run_hrw(s.plan()).exit_code == 0);  // the old plan: a plain one
  const auto before = tree(s.out);
  for (int sig : {SIGTERM, SIGKILL}) {
    INFO("signal " << sig);
    // Through the emulator under qemu: exec'ing the aarch64 binary directly fails there.
    const pid_t pid = hrw::test::start_hrw({"plan", "--from", s.a, "--to", s.b, "--keys", s.keys, "--out", s.out,
                                            "--quiet", "--max-moved-fraction", "0.03", "--chunk-size", "64"});
    // Wait until step 2 is being built in the temp sibling, then signal; stop waiting at
    // once if the run ends first (a failed exec, or a machine fast enough to finish).
    bool mid_step = false, ended = false;
    int status = 0;
    // A deadline in time, not in polls: under qemu on a loaded machine, choosing the steps
    // takes minutes, and each poll is itself emulated.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    while (!mid_step && !ended && std::chrono::steady_clock::now() < deadline) {
      const std::string build = plan_build_dir(s.out);
      mid_step = !build.empty() && fs::exists(build + "/steps/02");
      if (!mid_step) {
        ended = ::waitpid(pid, &status, WNOHANG) == pid;
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    REQUIRE_FALSE(ended);
    ::kill(pid, sig);
    ::waitpid(pid, &status, 0);
    CHECK(mid_step);
    CHECK(tree(s.out) == before);
    if (sig == SIGTERM) {
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
      s.only_inputs_beside();
    } else {
      CHECK(!plan_build_dir(s.out).empty());  // the killed run's tree is left...
    }
  }
  // ...and removed by the next run into the folder, which publishes its own plan.
  s.keys = s.dir.write("k.txt", key_lines(3000));
  REQUIRE(run_hrw(s.plan()).exit_code == 0);
  CHECK(names(s.out) == Names{"from.json", "moves.csv", "summary.json", "to.json"});
  s.only_inputs_beside();
}

TEST_CASE("plan folder: a folder another run holds is refused at once", "[cli][plan-folder]") {
  Setup s;
  REQUIRE(run_hrw(s.plan()).exit_code == 0);
  const auto before = tree(s.out);
  const int fd = ::open(s.out.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  const auto r = run_hrw(s.plan({"--max-moved-fraction", "0.05"}));
  ::close(fd);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hrw: " + s.out + ": another hrw run is writing this plan folder\n");
  CHECK(tree(s.out) == before);
  s.only_inputs_beside();
}

TEST_CASE("plan folder: a symlink to the folder stays a link to the new plan", "[cli][plan-folder]") {
  Setup s;
  fs::create_directories(s.dir.file("real"));
  const std::string link = s.dir.file("p");
  fs::create_symlink(s.dir.file("real"), link);
  REQUIRE(run_hrw(s.plan({"--max-moved-fraction", "0.05"})).exit_code == 0);
  REQUIRE(run_hrw(s.plan()).exit_code == 0);
  CHECK(fs::is_symlink(link));
  CHECK(names(s.dir.file("real")) == Names{"from.json", "moves.csv", "summary.json", "to.json"});
  CHECK(names(s.dir.path()) == Names{"A.json", "B.json", "k.txt", "p", "real"});
}

TEST_CASE("plan folder: two concurrent runs into one folder, 50 times (5 under qemu), one whole plan each time",
          "[cli][plan-folder]") {
  TempDir dir;
  const std::string a = dir.write("A.json", view_json(1, 6));
  const std::string b = dir.write("B.json", view_json(2, 6, "added-d"));
  const std::string c = dir.write("C.json", view_json(3, 6, "added-e"));
  const std::string k1 = dir.write("k1.txt", key_lines(4000, "one:"));
  const std::string k2 = dir.write("k2.txt", key_lines(3000, "two:"));
  const std::string out = dir.file("p");
  int refused = 0;
  // Each round starts two processes: under qemu, where a process starts in about a second,
  // a tenth of the rounds.
  const auto rounds = hrw::test::scaled(50, hrw::test::kEmulatedScale);
  for (std::size_t round = 0; round < rounds; ++round) {
    auto run = [&](const std::string& to, const std::string& keys) {
      return run_hrw({"plan", "--from", a, "--to", to, "--keys", keys, "--out", out, "--quiet"});
    };
    auto x = std::async(std::launch::async, run, b, k1);
    auto y = std::async(std::launch::async, run, c, k2);
    const auto rx = x.get(), ry = y.get();
    for (const auto* r : {&rx, &ry}) {
      INFO(r->err);
      CHECK((r->exit_code == 0 || (r->exit_code == 2 && r->err.find("is writing this plan folder") != std::string::npos)));
      refused += r->exit_code == 2;
    }
    CHECK((rx.exit_code == 0 || ry.exit_code == 0));
    // One whole plan: the summary's target view and every row of moves.csv from one run.
    const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
    const int to_version = summary["to_version"].get<int>();
    REQUIRE((to_version == 2 || to_version == 3));
    const std::string node = to_version == 2 ? "added-d" : "added-e";
    const std::string prefix = to_version == 2 ? "one:" : "two:";
    std::istringstream moves(read_file(out + "/moves.csv"));
    std::string line;
    std::getline(moves, line);
    CHECK(line == "batch,key,from,to");
    std::uint64_t rows = 0, wrong = 0;
    while (std::getline(moves, line)) {
      ++rows;
      wrong += line.size() < node.size() || line.compare(line.size() - node.size(), node.size(), node) != 0 ||
               line.find("," + prefix) == std::string::npos;
    }
    CHECK(wrong == 0);
    CHECK(rows == summary["moved"].get<std::uint64_t>());
    CHECK(summary["keys"].get<std::uint64_t>() == (to_version == 2 ? 4000u : 3000u));
    CHECK(names(out) == Names{"from.json", "moves.csv", "summary.json", "to.json"});
  }
  CHECK(names(dir.path()) == Names{"A.json", "B.json", "C.json", "k1.txt", "k2.txt", "p"});
  WARN(refused << " of 100 runs were refused by the lock");
}
