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

// Device and inode of what an input path reads, or nothing when there is no file to protect:
// a missing path, a pipe, a device. "-" is stdin: a file only when redirected from one.
std::optional<std::pair<dev_t, ino_t>> input_file(const NamedInput& in) {
  struct stat st {};
  const int rc = in.path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(in.path.c_str(), &st);
  if (rc != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

// The same for an output: what it would replace or write into ("-": stdout).
std::optional<std::pair<dev_t, ino_t>> output_file(const NamedOutput& o) {
  struct stat st {};
  const int rc = o.path == "-" ? ::fstat(STDOUT_FILENO, &st) : ::stat(o.path.c_str(), &st);
  if (rc != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

std::string quoted_path(const std::string& path) {
  return quote_for_message(path == "-" ? std::string("stdout") : path, 4096);
}

// An output that is an input would replace the only copy of what the run reads (a plan's
// --svg over its --from-placement); an input inside a folder output would be removed with
// the folder's old tree.
void check_against_inputs(const NamedOutput& o, const std::vector<NamedInput>& inputs) {
  const auto out = output_file(o);
  if (!out) return;
  for (const NamedInput& in : inputs) {
    const auto file = input_file(in);
    if (!file) continue;
    if (*file == *out)
      throw InputError(fmt::format("{} and {} name the same file {}", o.what, in.what,
                                   quoted_path(in.path == "-" ? o.path : in.path)));
    if (!o.folder || in.path == "-") continue;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::canonical(in.path, ec);
    if (ec) continue;
    while (p.has_relative_path()) {
      p = p.parent_path();
      struct stat st {};
      if (::stat(p.c_str(), &st) == 0 && std::pair{st.st_dev, st.st_ino} == *out)
        throw InputError(fmt::format("{} {} is inside the {} folder {}, which is replaced as a whole",
                                     in.what, quoted_path(in.path), o.what, quoted_path(o.path)));
    }
  }
}

}  // namespace

void check_outputs(const std::vector<NamedOutput>& outputs, const std::vector<NamedInput>& inputs) {
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
  for (const NamedOutput& o : outputs) check_against_inputs(o, inputs);
}

}  // namespace hrw
