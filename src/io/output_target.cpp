#include "output_target.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw {

namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's ELOOP limit

std::string dir_of(const std::string& p) {
  const auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string read_link(const std::string& p) {
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
  if (n < 0) throw InputError(fmt::format("{}: cannot read the symlink: {}", p, std::strerror(errno)));
  target.resize(static_cast<std::size_t>(n));
  return target;
}

}  // namespace

bool through_proc(const std::string& p) {
  return p.rfind("/proc/", 0) == 0 || p.rfind("/dev/fd/", 0) == 0;
}

std::string output_name(const std::string& path) { return path == "-" ? "stdout" : path; }

OutputTarget resolve_output(const std::string& path) {
  using Kind = OutputTarget::Kind;
  if (path == "-") return {Kind::kStreamed, path};
  if (path.empty()) throw InputError("empty output path");
  if (path.back() == '/') throw InputError(fmt::format("{}: names a folder, not a file", path));
  std::string p = path;
  for (int hops = 0; hops <= kMaxSymlinks; ++hops) {
    struct stat st {};
    if (through_proc(p)) {
      // /proc/self/fd/1 "links" to things like pipe:[123]: open it, never rename over it.
      if (::stat(p.c_str(), &st) != 0)
        throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
      if (S_ISDIR(st.st_mode)) return {Kind::kFolder, p};
      return {Kind::kStreamed, p};
    }
    if (::lstat(p.c_str(), &st) != 0) {
      // ENOTDIR (a path under a regular file): creating the temp file says why it fails.
      if (errno == ENOENT || errno == ENOTDIR) return {Kind::kMissing, p};
      throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      const std::string to = read_link(p);
      p = !to.empty() && to[0] == '/' ? to : dir_of(p) + "/" + to;
      continue;
    }
    if (S_ISREG(st.st_mode)) return {Kind::kRegular, p};
    if (S_ISDIR(st.st_mode)) return {Kind::kFolder, p};
    return {Kind::kStreamed, p};
  }
  throw InputError(fmt::format("{}: too many levels of symbolic links", path));
}

}  // namespace hrw
