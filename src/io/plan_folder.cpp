// A plan folder published as one unit (plan_folder.hpp, docs/plan.md "Publication").
#include "hrw/plan_folder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "temp_registry.hpp"

namespace hrw {

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) { return quote_for_message(s, 4096); }

// What a plan writes at the top of its folder: moves.csv, summary.json, from.json, to.json,
// transitions.csv, steps/, an SVG, a Dask placement's place-NNNNN.csv and stats.json,
// the moves-NNNNN.csv parts Dask plans of earlier versions left, and the temp files of
// earlier versions of hrw.
bool plan_entry(const std::string& name) {
  static const std::regex dask_part(R"((moves|place)-[0-9]{5,}\.csv)");
  for (const char* file : {"moves.csv", "summary.json", "from.json", "to.json", "transitions.csv", "steps",
                           "stats.json"})
    if (name == file) return true;
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".svg") == 0) return true;
  if (name[0] == '.' && name.find(".tmp-") != std::string::npos) return true;
  return std::regex_match(name, dask_part);
}

[[noreturn]] void sync_failed(const std::string& dir, const std::string& path, int err) {
  throw WriteError(fmt::format("{}: write failed: {}: {}", dir, path, std::strerror(err)));
}

void sync_path(const std::string& dir, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) sync_failed(dir, path, errno);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const int err = errno;
    ::close(fd);
    sync_failed(dir, path, err);
  }
  ::close(fd);
}

// Every file and folder of the new tree reaches the disk before the swap names it.
void sync_tree(const std::string& dir, const std::string& root) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto type = it->symlink_status(ec).type();
    if (type == fs::file_type::regular || type == fs::file_type::directory) sync_path(dir, it->path().string());
  }
  if (ec) sync_failed(dir, root, ec.value());
  sync_path(dir, root);
}

// " (pid N)" for the live run whose temp tree `.NAME.tmp-N-XXXXXX` is beside the folder.
std::string live_builder(const std::string& parent, const std::string& prefix) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(parent, ec)) {
    const std::string n = e.path().filename().string();
    if (n.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(n.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0) return fmt::format(" (pid {})", pid);
  }
  return "";
}

std::string absolute_target(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(d), ec);
  if (ec) throw InputError(fmt::format("{}: cannot resolve the output folder: {}", dir, ec.message()));
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

PlanFolder::PlanFolder(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) throw InputError("empty output folder path");
  target_ = absolute_target(dir_);
  const fs::path target(target_);
  if (!target.has_relative_path())
    throw InputError(fmt::format("{}: a plan folder cannot be the root folder", dir_));
  const std::string parent = target.parent_path().string(), name = target.filename().string();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent))
    throw InputError(fmt::format("{}: cannot create the output folder: {}", dir_,
                                 ec ? ec.message() : "not a directory"));
  // The lock: flock on the folder itself, from before the build to after the swap (no
  // file is added anywhere). A folder that does not exist yet is created empty to carry
  // it. The lock taken, the name must still be that folder (a run that swapped its tree in
  // meanwhile made the locked one its old tree): else take the new one.
  for (int attempt = 0;; ++attempt) {
    if (::mkdir(target_.c_str(), 0777) == 0) created_ = true;
    lock_fd_ = ::open(target_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0)
      throw InputError(fmt::format("{}: cannot create the output folder: {}", dir_,
                                   errno == ENOTDIR ? "not a directory" : std::strerror(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(lock_fd_);
      lock_fd_ = -1;
      if (err != EWOULDBLOCK)
        throw InputError(fmt::format("{}: cannot lock the output folder: {}", dir_, std::strerror(err)));
      throw InputError(fmt::format("{}: another hrw run{} is writing this plan folder", dir_,
                                   live_builder(parent, "." + name + ".tmp-")));
    }
    struct stat held {}, now {};
    if (::fstat(lock_fd_, &held) == 0 && ::stat(target_.c_str(), &now) == 0 &&
        held.st_dev == now.st_dev && held.st_ino == now.st_ino)
      break;
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (attempt == 100) throw InputError(fmt::format("{}: the output folder keeps being replaced", dir_));
  }
  struct stat st {};
  ::fstat(lock_fd_, &st);

  try {
    {
      for (const fs::directory_entry& e : fs::directory_iterator(target_, ec)) {
        const std::string entry = e.path().filename().string();
        if (!plan_entry(entry))
          throw InputError(fmt::format("{}: holds {}, which no plan writes: give a new or empty folder, "
                                       "or one that holds a plan",
                                       dir_, quoted(entry)));
      }
      if (ec) throw InputError(fmt::format("{}: cannot read the output folder: {}", dir_, ec.message()));
    }
    // Trees of runs killed outright (SIGKILL, a power cut): their PID no longer exists.
    const std::string prefix = "." + name + ".tmp-";
    for (const fs::directory_entry& e : fs::directory_iterator(parent, ec))
      if (io::stale_temp_name(e.path().filename().string(), prefix)) io::remove_tree(e.path().c_str());
    build_ = fmt::format("{}/{}{}-XXXXXX", parent, prefix, ::getpid());
    if (!::mkdtemp(build_.data()))
      throw InputError(fmt::format("{}: cannot create a temporary folder beside it: {}", dir_,
                                   std::strerror(errno)));
    slot_ = io::register_temp_tree(build_);
    ::chmod(build_.c_str(), st.st_mode & 07777);
  } catch (...) {
    release();
    throw;
  }
}

void PlanFolder::release() noexcept {
  if (!published_ && slot_ >= 0) io::remove_tree(build_.c_str());
  io::unregister_temp_tree(slot_);
  // A folder this run created for its lock goes again when no plan was published into it.
  if (!published_ && created_) ::rmdir(target_.c_str());
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

PlanFolder::~PlanFolder() { release(); }

std::string PlanFolder::file(const std::string& relative) const {
  const fs::path p = fs::path(build_) / relative;
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) throw InputError(fmt::format("{}: cannot create {}: {}", dir_, quoted(relative), ec.message()));
  return p.string();
}

std::string PlanFolder::inside(const std::string& path) const {
  if (path.empty() || path == "-") return "";
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) return "";
  const fs::path rel = p.lexically_relative(target_);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return "";
  // Only what a plan writes may be in the folder (so that the next run may replace it):
  // a file of the caller's goes directly in it.
  if (rel.has_parent_path())
    throw InputError(fmt::format("{}: inside the plan folder {}, a file must be directly in it", path, dir_));
  return file(rel.string());
}

void PlanFolder::publish() {
  sync_tree(dir_, build_);
  io::begin_publishing();
  // The folder exists (the lock is on it): exchange the trees.
  std::string old = build_;  // where the old tree ends up
  int rc = ::renameat2(AT_FDCWD, build_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE);
  if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
    // A file system without RENAME_EXCHANGE: two renames, the old tree put back if the
    // second fails (the folder is missing between them).
    old = build_ + ".old";
    rc = ::rename(target_.c_str(), old.c_str());
    if (rc == 0 && (rc = ::rename(build_.c_str(), target_.c_str())) != 0) {
      const int err = errno;
      ::rename(old.c_str(), target_.c_str());
      errno = err;
    }
  }
  if (rc != 0) {
    const int err = errno;
    io::end_publishing();
    throw WriteError(fmt::format("{}: cannot move the finished plan into place: {}", dir_, std::strerror(err)));
  }
  published_ = true;
  const std::string parent = fs::path(target_).parent_path().string();
  if (const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  io::remove_tree(old.c_str());
  io::unregister_temp_tree(slot_);
  io::end_publishing();
}

}  // namespace hrw
