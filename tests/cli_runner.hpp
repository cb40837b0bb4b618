// Runs the real `hrw` binary for CLI tests (through the cross-compiling emulator when there
// is one) and captures its exit code, stdout and stderr.
#pragma once
#include <string>
#include <vector>

namespace hrw::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// args exclude the program name. `input` is fed on stdin (empty: /dev/null-like).
CliResult run_hrw(const std::vector<std::string>& args, const std::string& input = "");

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

}  // namespace hrw::test
