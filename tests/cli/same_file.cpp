// An output that is one of the run's inputs is refused before anything is read (docs/errors.md,
// "Outputs"): same device and inode after following symlinks, hard links included, for every
// command that writes files; an input inside a plan's --out folder too (the folder is replaced
// as a whole). Every refused run leaves the input byte for byte as it was.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cli_runner.hpp"

using hrw::test::read_file;
using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

const char* kA = R"({"version": 1, "nodes": ["a", "b", "c"]})";
const char* kB = R"({"version": 2, "nodes": ["a", "b", "c", "d"]})";

struct Files {
  TempDir dir;
  std::string a = dir.write("A.json", kA), b = dir.write("B.json", kB);
  std::string keys = dir.write("k.txt", "x\ny\nz\nw\n");
  std::string current = dir.write("CUR.csv", "key,owner\nx,a\ny,b\nz,c\n");
};

// Runs ARGS; expects exit 2 and exactly one line naming both options, and `file` unchanged.
void refused(const std::vector<std::string>& args, const std::string& file, const std::string& message) {
  const std::string before = read_file(file);
  const auto r = run_hrw(args);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hrw: " + message + "\n");
  CHECK(read_file(file) == before);
}

int run_shell(const std::string& args, const std::string& redirections) {
  const std::string cmd = std::string(hrw::test::kCliEmulator) + " " + hrw::test::kCliPath + " " + args + " " + redirections;
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("same file: plan --svg over --from-placement, --from, --to, --keys", "[cli][same-file]") {
  Files f;
  const std::string out = f.dir.file("p");
  refused({"plan", "--from-placement", f.current, "--to", f.b, "--out", out, "--svg", f.current}, f.current,
          "--svg and --from-placement name the same file \"" + f.current + "\"");
  refused({"plan", "--from", f.a, "--to", f.b, "--keys", f.keys, "--out", out, "--svg", f.a}, f.a,
          "--svg and --from name the same file \"" + f.a + "\"");
  refused({"plan", "--from", f.a, "--to", f.b, "--keys", f.keys, "--out", out, "--svg", f.b}, f.b,
          "--svg and --to name the same file \"" + f.b + "\"");
  refused({"plan", "--from", f.a, "--to", f.b, "--keys", f.keys, "--out", out, "--svg", f.keys}, f.keys,
          "--svg and --keys name the same file \"" + f.keys + "\"");
  CHECK_FALSE(fs::exists(out));  // refused before the folder is made
}

TEST_CASE("same file: place --out and --stats over --keys and --cluster", "[cli][same-file]") {
  Files f;
  refused({"place", "--cluster", f.a, "--keys", f.keys, "--out", f.keys}, f.keys,
          "--out and --keys name the same file \"" + f.keys + "\"");
  refused({"place", "--cluster", f.a, "--keys", f.keys, "--stats", f.a}, f.a,
          "--stats and --cluster name the same file \"" + f.a + "\"");
  // A new path cannot be an input; the same run with another output works.
  const auto ok = run_hrw({"place", "--cluster", f.a, "--keys", f.keys, "--out", f.dir.file("o.csv"), "--quiet"});
  CHECK(ok.exit_code == 0);
}

TEST_CASE("same file: through a symlink and a hard link", "[cli][same-file]") {
  Files f;
  const std::string link = f.dir.file("link.txt"), hard = f.dir.file("hard.txt");
  fs::create_symlink(f.keys, link);
  REQUIRE(::link(f.keys.c_str(), hard.c_str()) == 0);
  refused({"place", "--cluster", f.a, "--keys", f.keys, "--out", link}, f.keys,
          "--out and --keys name the same file \"" + f.keys + "\"");
  refused({"place", "--cluster", f.a, "--keys", f.keys, "--out", hard}, f.keys,
          "--out and --keys name the same file \"" + f.keys + "\"");
  refused({"place", "--cluster", f.a, "--keys", link, "--out", f.keys}, f.keys,
          "--out and --keys name the same file \"" + link + "\"");
  CHECK(fs::is_symlink(link));
}

TEST_CASE("same file: refused before any input is read", "[cli][same-file]") {
  Files f;
  // A malformed cluster file would be an error of its own once read: the refusal comes first.
  const std::string bad = f.dir.write("bad.json", "{not json");
  refused({"place", "--cluster", bad, "--keys", f.keys, "--out", bad}, bad,
          "--out and --cluster name the same file \"" + bad + "\"");
}

TEST_CASE("same file: compare --svg over its inputs", "[cli][same-file]") {
  Files f;
  refused({"compare", "--keys", f.keys, "--svg", f.keys}, f.keys,
          "--svg and --keys name the same file \"" + f.keys + "\"");
  refused({"compare", "--from-cluster", f.a, "--to-cluster", f.b, "--svg", f.b}, f.b,
          "--svg and --to-cluster name the same file \"" + f.b + "\"");
}

TEST_CASE("same file: stdin and stdout redirected from and to an input", "[cli][same-file]") {
  Files f;
  const std::string before = read_file(f.keys);
  // `>>` keeps the file: hrw must not append its output to the keys it is reading.
  CHECK(run_shell("place --cluster " + f.a + " --keys " + f.keys, ">> " + f.keys + " 2>/dev/null") == 2);
  CHECK(run_shell("place --cluster " + f.a + " --keys - --out " + f.keys, "< " + f.keys + " 2>/dev/null") == 2);
  CHECK(read_file(f.keys) == before);
  const auto r = run_hrw({"place", "--cluster", f.a, "--keys", "-", "--out", f.dir.file("o.csv"), "--quiet"}, "x\n");
  CHECK(r.exit_code == 0);  // a pipe on stdin is not a file
}

TEST_CASE("same file: an input inside the plan folder", "[cli][same-file]") {
  Files f;
  const std::string out = f.dir.file("p");
  fs::create_directories(out);
  const std::string keys = f.dir.write("p/keys.txt", "x\ny\n");
  refused({"plan", "--from", f.a, "--to", f.b, "--keys", keys, "--out", out}, keys,
          "--keys \"" + keys + "\" is inside the --out folder \"" + out + "\", which is replaced as a whole");
  // --out naming the folder the inputs are in.
  refused({"plan", "--from", f.a, "--to", f.b, "--keys", f.keys, "--out", f.dir.path()}, f.a,
          "--from \"" + f.a + "\" is inside the --out folder \"" + f.dir.path() + "\", which is replaced as a whole");
  // Inside, one level down, through a symlinked folder.
  fs::create_directories(f.dir.file("p/steps/01"));
  const std::string in_steps = f.dir.write("p/steps/01/view.json", kA);
  fs::create_symlink(out, f.dir.file("plink"));
  refused({"plan", "--from", in_steps, "--to", f.b, "--keys", f.keys, "--out", f.dir.file("plink")}, in_steps,
          "--from \"" + in_steps + "\" is inside the --out folder \"" + f.dir.file("plink") +
              "\", which is replaced as a whole");
}
