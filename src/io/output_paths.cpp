#include "hrw/output_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "output_target.hpp"

namespace hrw {

namespace {

// Two outputs are the same file when they are the same inode, or, for paths that do not
// exist yet, the same absolute path once symlinks in the existing part are resolved. A
// character device named as such (/dev/null, a terminal) may take several outputs: nothing
// is replaced and nothing read back. "" for those.
std::string identity(const NamedOutput& o) {
  struct stat st {};
  if (o.path == "-") {
    if (::fstat(STDOUT_FILENO, &st) == 0) return fmt::format("inode {}:{}", st.st_dev, st.st_ino);
    return "stdout";
  }
  if (::stat(o.path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) && !o.folder && !through_proc(resolve_output(o.path).path)) return "";
    return fmt::format("inode {}:{}", st.st_dev, st.st_ino);
  }
  std::error_code ec;
  std::string p = std::filesystem::weakly_canonical(std::filesystem::absolute(o.path), ec).string();
  if (ec) p = o.path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return "path " + p;
}

std::string shown(const std::string& path) { return path == "-" ? "stdout" : path; }

void check_one(const NamedOutput& o) {
  try {
    if (o.folder) {
      // What is in the way of a folder is reported by make_output_dir.
      if (o.path.empty()) throw InputError("empty folder path");
      return;
    }
    if (resolve_output(o.path).kind == OutputTarget::Kind::kFolder)
      throw InputError(fmt::format("{}: is a directory", o.path));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", o.what, e.what()));
  }
}

}  // namespace

void check_outputs(const std::vector<NamedOutput>& outputs) {
  std::vector<std::string> ids;
  for (const NamedOutput& o : outputs) {
    check_one(o);
    ids.push_back(identity(o));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (!ids[i].empty() && ids[i] == ids[j])
        throw InputError(fmt::format("{}: {} is also written by {}", outputs[i].what,
                                     shown(outputs[i].path), outputs[j].what));
}

}  // namespace hrw
