// Outputs never destroy what is at the path (devices, FIFOs, symlinks, stdout), collide, or
// publish half a result; temp files go away on every catchable signal; stdout and stderr
// failures are one line or silence, never an abort. Device nodes are made with mknod in a
// temp dir: the real /dev is never an output here.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "hrw/atomic_file.hpp"

using hrw::test::read_file;
using hrw::test::names;
using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const char* kView = R"({"version": 1, "nodes": ["a", "b", "c"]})";
const char* kView2 = R"({"version": 2, "nodes": ["a", "b", "c", "d"]})";

// A character device made in `dir` (1,3 is null, 1,7 is full). Needs CAP_MKNOD (CI runs as root).
std::string device(const TempDir& dir, const std::string& name, unsigned minor) {
  const std::string p = dir.file(name);
  REQUIRE(::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0);
  return p;
}

bool is_char_device(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Runs `hrw ARGS` through sh with the redirections given; returns the exit status.
int run_shell(const std::string& args, const std::string& redirections) {
  const std::string cmd = std::string(hrw::test::kCliEmulator) + " " + hrw::test::kCliPath + " " + args + " " + redirections;
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Fixture {
  TempDir dir;
  std::string view = dir.write("v.json", kView), view2 = dir.write("v2.json", kView2);
  std::string keys = dir.write("k.txt", "x\ny\nz\n");
  std::vector<std::string> place(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"place", "--cluster", view, "--keys", keys};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::vector<std::string> plan(const std::string& out, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"plan", "--from", view, "--to", view2, "--keys", keys, "--out", out};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

}  // namespace

TEST_CASE("outputs: a device node stays a device and receives the data", "[cli][outputs]") {
  Fixture f;
  const std::string null = device(f.dir, "null", 3);
  for (const auto& args : {f.place({"--out", null}), f.place({"--stats", null}),
                           f.plan(f.dir.file("p"), {"--svg", null})}) {
    const auto res = run_hrw(args);
    CHECK(res.exit_code == 0);
    CHECK(is_char_device(null));
  }
  const auto res = run_hrw({"compare", "--sample", "100", "--svg", null});
  CHECK(res.exit_code == 0);
  CHECK(is_char_device(null));
  // A device takes several outputs of one run: nothing is replaced or read back.
  CHECK(run_hrw(f.place({"--out", null, "--stats", null})).exit_code == 0);
  CHECK(run_shell("place --cluster " + f.view + " --keys " + f.keys + " --stats " + null, "> " + null) == 0);
  CHECK(is_char_device(null));
}

TEST_CASE("outputs: a FIFO is written in place (streamed)", "[cli][outputs]") {
  Fixture f;
  const std::string fifo = f.dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto reader = std::async(std::launch::async, [&] { return read_file(fifo); });
  const auto res = run_hrw(f.place({"--out", fifo}));
  CHECK(res.exit_code == 0);
  CHECK(reader.get() == run_hrw(f.place({})).out);
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("outputs: a symlink is followed, its target replaced, the link kept", "[cli][outputs]") {
  Fixture f;
  const std::string expected = run_hrw(f.place({})).out;
  fs::create_directory(f.dir.file("real"));
  const std::string target = f.dir.write("real/out.csv", "old\n"), link = f.dir.file("link.csv");
  fs::create_symlink("real/out.csv", link);
  REQUIRE(run_hrw(f.place({"--out", link})).exit_code == 0);
  CHECK(fs::is_symlink(link));
  CHECK(read_file(target) == expected);
  // A link to a missing file creates the file at the link's target.
  fs::create_symlink("real/new.csv", f.dir.file("dangling.csv"));
  REQUIRE(run_hrw(f.place({"--out", f.dir.file("dangling.csv")})).exit_code == 0);
  CHECK(fs::is_symlink(f.dir.file("dangling.csv")));
  CHECK(read_file(f.dir.file("real/new.csv")) == expected);
  // A link to /proc/self/fd/1 is stdout.
  fs::create_symlink("/proc/self/fd/1", f.dir.file("stdout-link"));
  const auto res = run_hrw(f.place({"--out", f.dir.file("stdout-link")}));
  CHECK(res.exit_code == 0);
  CHECK(res.out == expected);
  CHECK(fs::is_symlink(f.dir.file("stdout-link")));
}

TEST_CASE("outputs: collisions, folders and empty paths are refused before reading keys",
          "[cli][outputs]") {
  Fixture f;
  const std::string missing_keys = f.dir.file("no-such-keys");  // never opened if checks come first
  fs::create_directory(f.dir.file("plan"));
  const std::string x = f.dir.file("x.csv");
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  auto place = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"place", "--cluster", f.view, "--keys", missing_keys};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto plan = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = {"plan", "--from", f.view, "--to", f.view2, "--keys", missing_keys, "--out", out};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const std::vector<Case> cases = {
      {place({"--out", x, "--stats", x}), "--stats: "},
      {place({"--stats", "-"}), "--stats: stdout is also written by --out"},
      {place({"--out", "/proc/self/fd/1", "--stats", "-"}), "--stats: stdout is also written by --out"},
      {place({"--out", f.dir.path()}), "--out: "},
      {place({"--out", f.dir.file("new/")}), "--out: "},
      {place({"--out", ""}), "--out: "},
      {place({"--stats", ""}), "--stats: "},
      {plan(f.dir.file("plan"), {"--svg", f.dir.file("plan/moves.csv")}), "--svg: "},
      {plan(f.dir.file("fresh"), {"--svg", f.dir.file("fresh/summary.json")}), "--svg: "},
      {plan(f.dir.file("fresh"), {"--svg", f.dir.file("fresh")}), "--svg: "},
      {plan(f.dir.file("plan"), {"--svg", f.dir.path()}), "--svg: "},
      {plan("", {}), "--out: "},
      {{"compare", "--sample", "10", "--svg", "-"}, "--svg: stdout is also written by the report"},
      {{"sample", "--keys", "10", "--out", ""}, "--out: "},
  };
  for (const Case& c : cases) {
    INFO(c.args.back());
    const auto res = run_hrw(c.args);
    CHECK(res.exit_code == 2);
    CHECK(lines(res.err) == 1);
    CHECK_THAT(res.err, Contains(c.option));
    CHECK_THAT(res.err, !Contains("no-such-keys"));
  }
  CHECK(names(f.dir.file("plan")).empty());
  CHECK(!fs::exists(f.dir.file("fresh")));
}

TEST_CASE("outputs: a plan that fails to publish one file publishes none", "[cli][outputs]") {
  Fixture f;
  const std::string out = f.dir.file("plan");
  REQUIRE(run_hrw(f.plan(out)).exit_code == 0);
  const std::string moves = read_file(out + "/moves.csv"), summary = read_file(out + "/summary.json");
  // A different plan into the same folder, whose chart cannot be written (a full device).
  const std::string other_keys = f.dir.write("k2.txt", "p\nq\nr\ns\nt\n");
  const std::string full = device(f.dir, "full", 7);
  const auto res = run_hrw({"plan", "--from", f.view, "--to", f.view2, "--keys", other_keys, "--out",
                            out, "--svg", full});
  CHECK(res.exit_code == 1);
  CHECK(lines(res.err) == 1);
  CHECK_THAT(res.err, Contains(full + ": write failed"));
  CHECK(is_char_device(full));
  CHECK(read_file(out + "/moves.csv") == moves);
  CHECK(read_file(out + "/summary.json") == summary);
  CHECK(names(out) == std::vector<std::string>{"from.json", "moves.csv", "summary.json", "to.json"});
}

TEST_CASE("outputs: sample writes its three files or none", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("s");
  fs::create_directories(out + "/to.json");  // in the way of the second file
  const auto res = run_hrw({"sample", "--keys", "10", "--out", out});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains("to.json: is a directory"));
  CHECK(names(out) == std::vector<std::string>{"to.json"});
}

TEST_CASE("outputs: temp files of a dead run are removed, a live run's kept", "[cli][outputs]") {
  Fixture f;
  const std::string out = f.dir.file("plan");
  fs::create_directory(out);
  // Inside the folder: part of the old tree, which the new plan replaces as a whole.
  f.dir.write("plan/.moves.csv.tmp-2147483647-abcdef", "stale");
  // Beside it: the temp trees plans are built in (docs/plan.md, "Publication").
  const std::string dead = ".plan.tmp-2147483647-abcdef";  // beyond any pid_max
  const std::string live = ".plan.tmp-" + std::to_string(::getpid()) + "-abcdef";
  fs::create_directories(f.dir.file(dead + "/steps/01"));
  f.dir.write(dead + "/steps/01/moves.csv", "stale");
  fs::create_directory(f.dir.file(live));
  REQUIRE(run_hrw(f.plan(out)).exit_code == 0);
  CHECK(names(out) == std::vector<std::string>{"from.json", "moves.csv", "summary.json", "to.json"});
  CHECK(!fs::exists(f.dir.file(dead)));
  CHECK(fs::exists(f.dir.file(live)));
  // A single output file's temp files beside it, as before.
  const std::string stats = f.dir.file("s.json");
  f.dir.write(".s.json.tmp-2147483647-abcdef", "stale");
  f.dir.write(".s.json.tmp-" + std::to_string(::getpid()) + "-abcdef", "in progress");
  REQUIRE(run_hrw(f.place({"--stats", stats, "--out", f.dir.file("o.csv")})).exit_code == 0);
  CHECK(!fs::exists(f.dir.file(".s.json.tmp-2147483647-abcdef")));
  CHECK(fs::exists(f.dir.file(".s.json.tmp-" + std::to_string(::getpid()) + "-abcdef")));
}


TEST_CASE("outputs: SIGQUIT and SIGTERM leave no output and no temp file", "[cli][outputs]") {
  Fixture f;
  for (int sig : {SIGQUIT, SIGTERM}) {
    const std::string out = f.dir.file("plan" + std::to_string(sig));
    const auto run = hrw::test::signal_plan_mid_run(f.view, f.view2, out, sig, false);
    CHECK(run.mid_way);
    CHECK(run.exit_code == 128 + sig);
    CHECK(names(out).empty());
    CHECK(hrw::test::plan_build_dir(out).empty());
  }
}

TEST_CASE("outputs: a signal ignored at start (nohup) stays ignored", "[cli][outputs]") {
  Fixture f;
  const std::string out = f.dir.file("plan");
  const auto run = hrw::test::signal_plan_mid_run(f.view, f.view2, out, SIGHUP, true);
  CHECK(run.mid_way);
  CHECK(run.exit_code == 0);
  CHECK(names(out) == std::vector<std::string>{"from.json", "moves.csv", "summary.json", "to.json"});
  CHECK(hrw::test::plan_build_dir(out).empty());
}

TEST_CASE("the library installs no signal handler", "[outputs]") {
  TempDir dir;
  const std::vector<int> signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
  auto handlers = [&] {
    std::vector<void (*)(int)> out;
    for (int sig : signals) {
      struct sigaction sa {};
      REQUIRE(sigaction(sig, nullptr, &sa) == 0);
      out.push_back(sa.sa_handler);
    }
    return out;
  };
  const auto before = handlers();  // Catch2's own, for some
  hrw::AtomicFile file(dir.file("out"));
  file.write("x");
  CHECK(handlers() == before);
  file.commit();
  CHECK(read_file(dir.file("out")) == "x");
}

TEST_CASE("outputs: a failing stdout is exit 1 and one line naming stdout, for every command",
          "[cli][outputs]") {
  Fixture f;
  const std::string full = device(f.dir, "full", 7), err = f.dir.file("err");
  const std::vector<std::string> commands = {
      "select k --nodes a,b",
      "place --cluster " + f.view + " --keys " + f.keys,
      "compare --sample 100",
      "verify --pairs 1000",
      "view show " + f.view,
  };
  for (const auto& c : commands) {
    INFO(c);
    CHECK(run_shell(c, "> " + full + " 2> " + err) == 1);
    const std::string text = read_file(err);
    CHECK(lines(text) == 1);
    CHECK_THAT(text, Contains("stdout: write failed"));
  }
}

TEST_CASE("outputs: an unwritable stderr never aborts", "[cli][outputs]") {
  Fixture f;
  const std::string full = device(f.dir, "full", 7);
  CHECK(run_shell("place --cluster " + f.view + " --keys " + f.dir.file("missing"), "2> " + full) == 2);
  CHECK(run_shell("place --cluster " + f.view + " --keys " + f.keys + " --out " + f.dir.file("o.csv"),
                  "2> " + full) == 0);
  CHECK(run_shell("place --cluster " + f.view + " --keys " + f.keys, "> " + full + " 2> " + full) == 1);
  CHECK(run_shell("select k --nodes a,b --replicas x", "2>&-") == 2);
}

TEST_CASE("inputs that never end: a key or record past the limit is refused, naming the line",
          "[cli][inputs]") {
  TempDir dir;
  const std::string err = dir.file("err");
  // Read-only use of /dev/zero: an endless input without LF.
  for (const char* format : {"lines", "csv"}) {
    const std::string cmd = "head -c 100000000 /dev/zero | " + std::string(hrw::test::kCliEmulator) + " " +
                            hrw::test::kCliPath + " place --nodes a,b --keys - --keys-format " + format +
                            " > /dev/null 2> " + err;
    const int status = std::system(cmd.c_str());
    CHECK(WEXITSTATUS(status) == 2);
    const std::string text = read_file(err);
    CHECK(lines(text) == 1);
    CHECK_THAT(text, Contains("<stdin>: line 1: a ") && Contains("longer than the 64 MiB limit"));
  }
  // A long key after other keys, arriving through a pipe in small reads: read exactly.
  const std::string cmd = "(printf 'a\\nb\\n'; head -c 3000000 /dev/zero | tr '\\0' k; printf '\\nc\\n') | " +
                          std::string(hrw::test::kCliEmulator) + " " + hrw::test::kCliPath +
                          " place --nodes a,b --keys - > " + dir.file("out") + " 2> " + err;
  CHECK(WEXITSTATUS(std::system(cmd.c_str())) == 0);
  const std::string out = read_file(dir.file("out"));
  CHECK(lines(out) == 5);
  CHECK_THAT(out, Contains("\n" + std::string(3000000, 'k') + ","));
}

TEST_CASE("commit_all: a rename that fails puts the files already renamed back", "[outputs]") {
  TempDir dir;
  const std::string kept = dir.write("kept.csv", "old\n"), fresh = dir.file("fresh.json");
  {
    hrw::AtomicFile a(kept), b(fresh), c(dir.file("blocked.svg"));
    a.write("new\n");
    b.write("{}\n");
    c.write("<svg/>\n");
    // Something takes c's path after the checks: its rename fails, after a's and b's.
    fs::create_directories(dir.file("blocked.svg/inside"));
    CHECK_THROWS_WITH(hrw::commit_all({&a, &b, &c}), Contains("blocked.svg: cannot rename"));
  }  // the temp files go with the objects
  CHECK(read_file(kept) == "old\n");
  CHECK(!fs::exists(fresh));
  CHECK(names(dir.path()) == std::vector<std::string>{"blocked.svg", "kept.csv"});
}

// Two runs with the same --out and --stats must leave one run's pair, never one's out beside
// the other's stats: a run renames its outputs holding a lock on their folder (docs/errors.md,
// "Outputs"). Here the test holds that lock: the run, its keys read, must wait for it and
// publish nothing meanwhile; once the lock is released both files appear together.
TEST_CASE("outputs: --out and --stats are renamed under the folder's lock, so runs never mix", "[cli][outputs]") {
  const TempDir dir;
  const std::string cluster = dir.write("c.json", R"({"nodes": ["a", "b", "c"]})");
  const std::string out = dir.file("out.csv"), stats = dir.file("stats.json");
  int to_hrw[2];
  REQUIRE(pipe(to_hrw) == 0);
  hrw::test::SpawnOptions options;
  options.stdin_fd = to_hrw[0];
  options.close_fds = {to_hrw[1]};
  const pid_t pid =
      hrw::test::start_hrw({"place", "--cluster", cluster, "--keys", "-", "--out", out, "--stats", stats, "--quiet"},
                           options);
  close(to_hrw[0]);
  const std::string keys = "k1\nk2\nk3\n";
  REQUIRE(write(to_hrw[1], keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()));
  const int folder = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(folder >= 0);
  REQUIRE(flock(folder, LOCK_EX) == 0);
  close(to_hrw[1]);  // the run reads its last key, then publishes
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 75 && done == 0; ++i) {  // 1.5 s: the run is long past its keys
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    done = waitpid(pid, &status, WNOHANG);
  }
  CHECK(done == 0);  // still waiting for the lock
  CHECK_FALSE(std::filesystem::exists(out));
  CHECK_FALSE(std::filesystem::exists(stats));
  close(folder);  // releases the lock
  if (done == 0) REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(hrw::test::read_file(out).rfind("key,owner\n", 0) == 0);
  CHECK(hrw::test::read_file(stats).find("\"keys\": 3") != std::string::npos);
}
