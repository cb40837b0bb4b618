#include "hrw/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "compression.hpp"
#include "output_target.hpp"
#include "temp_registry.hpp"

namespace hrw {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

// remove_temp_files_now() runs in signal handlers: it may only touch a fixed table of C
// strings, each published by a flag written after the path.
constexpr int kMaxTempFiles = 64;
char g_paths[kMaxTempFiles][PATH_MAX];
std::atomic<bool> g_used[kMaxTempFiles];
// Temp folders (PlanFolder's trees), removed after the files.
constexpr int kMaxTempTrees = 8;
char g_trees[kMaxTempTrees][PATH_MAX];
std::atomic<bool> g_tree_used[kMaxTempTrees];
std::mutex g_table_mutex;  // registration only, never taken by the signal path

// Who owns the temp files right now: nobody, commit_all (renaming), or a signal handler
// (removing them). Whoever moves it away from kIdle first wins; the other backs off.
enum : int { kIdle, kPublishing, kRemoving };
std::atomic<int> g_state{kIdle};

int register_temp(const std::string& path) {
  std::lock_guard lock(g_table_mutex);
  for (int i = 0; i < kMaxTempFiles; ++i) {
    if (g_used[i].load()) continue;
    std::snprintf(g_paths[i], PATH_MAX, "%s", path.c_str());
    g_used[i].store(true);
    return i;
  }
  throw std::runtime_error("too many temporary output files open at once");
}

void remove_tree_at(int parent, const char* name, int depth) noexcept {
  if (::unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Entries are removed while the folder is read: read it again from the start until a
  // pass removes nothing (getdents64 is a system call: no allocation, signal-safe).
  alignas(8) char buf[4096];
  for (bool removed = true; removed && depth < 32;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;) {
      for (ssize_t off = 0; off < n;) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf + off);
        off += e->d_reclen;
        const char* d = e->d_name;
        if (d[0] == '.' && (d[1] == 0 || (d[1] == '.' && d[2] == 0))) continue;
        remove_tree_at(fd, d, depth + 1);
        removed = true;
      }
    }
  }
  ::close(fd);
  ::unlinkat(parent, name, AT_REMOVEDIR);
}

void unregister_temp(int& slot) {
  if (slot >= 0) g_used[slot].store(false);
  slot = -1;
}

[[noreturn]] void write_failed(const std::string& path, int err) {
  throw WriteError(fmt::format("{}: write failed: {}", output_name(path), std::strerror(err)));
}

// mkstemp creates 0600 files; outputs should get the usual 0666 & ~umask. umask can only
// be read by setting it, so read it once.
mode_t file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

std::string dir_of(const std::string& p) {
  const std::filesystem::path fp(p);
  return fp.parent_path().empty() ? "." : fp.parent_path().string();
}

std::string temp_prefix(const std::string& target) {
  std::string prefix = ".";  // appends, not "." + name: GCC 12's -Wrestrict false positive
  prefix += std::filesystem::path(target).filename().string();
  prefix += ".tmp-";
  return prefix;
}

// `.NAME.tmp-PID-XXXXXX` (and its `.old` backup) left by a run that no longer exists: that
// run was killed by a signal nobody could catch (SIGKILL, a power cut). Removed here.
void remove_stale_temps(const std::string& target) {
  const std::string dir = dir_of(target), prefix = temp_prefix(target);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (io::stale_temp_name(name, prefix)) ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

// At `offset` (pwrite) when there is one: a file written whole, whose pieces may be written
// by several threads (AtomicFile::reserve); in order (write) when streamed.
void write_all(int fd, std::string_view data, const std::string& path, std::optional<std::uint64_t> offset) {
  while (!data.empty()) {
    const ssize_t n = offset ? ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(*offset))
                             : ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) write_failed(path, n < 0 ? errno : EIO);
    data.remove_prefix(static_cast<std::size_t>(n));
    if (offset) *offset += static_cast<std::uint64_t>(n);
  }
}

struct Backup {
  std::string target, saved;  // saved: the previous version's second name, if made
  bool existed = false;       // there was a previous version
};

// Two runs that publish the same outputs (`--out X --stats Y` twice at once) must not
// interleave their renames, or X of one lands beside Y of the other: each run renames its
// files holding an exclusive flock on every folder they land in, taken in path order (so
// two runs never wait on each other in a cycle) and released by closing. Best effort: a
// folder that cannot be opened or locked (no flock on the file system) is renamed into
// without it.
class FolderLocks {
 public:
  explicit FolderLocks(const std::set<std::string>& folders) {
    for (const std::string& folder : folders) {
      const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) continue;
      while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
      }
      fds_.push_back(fd);
    }
  }
  ~FolderLocks() {
    for (int fd : fds_) ::close(fd);
  }
  FolderLocks(const FolderLocks&) = delete;
  FolderLocks& operator=(const FolderLocks&) = delete;

 private:
  std::vector<int> fds_;
};

}  // namespace

namespace io {

void remove_tree(const char* path) noexcept { remove_tree_at(AT_FDCWD, path, 0); }

int register_temp_tree(const std::string& path) {
  std::lock_guard lock(g_table_mutex);
  for (int i = 0; i < kMaxTempTrees; ++i) {
    if (g_tree_used[i].load()) continue;
    std::snprintf(g_trees[i], PATH_MAX, "%s", path.c_str());
    g_tree_used[i].store(true);
    return i;
  }
  throw std::runtime_error("too many temporary output folders open at once");
}

void unregister_temp_tree(int& slot) {
  if (slot >= 0) g_tree_used[slot].store(false);
  slot = -1;
}

void begin_publishing() {
  int expected = kIdle;
  while (!g_state.compare_exchange_weak(expected, kPublishing)) {
    if (expected == kRemoving) throw std::runtime_error("interrupted by a signal");
    expected = kIdle;
  }
}

void end_publishing() noexcept { g_state.store(kIdle); }

bool stale_temp_name(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  char* end = nullptr;
  const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
  if (pid <= 0 || *end != '-' || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace io

void make_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError(fmt::format("{}: cannot create the output folder: {}", dir,
                                 ec ? ec.message() : "not a directory"));
}

bool remove_temp_files_now() noexcept {
  int expected = kIdle;
  if (!g_state.compare_exchange_strong(expected, kRemoving)) return expected == kRemoving;
  for (int i = 0; i < kMaxTempFiles; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  for (int i = 0; i < kMaxTempTrees; ++i)
    if (g_tree_used[i].load()) io::remove_tree(g_trees[i]);
  return true;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const OutputTarget target = resolve_output(path_);
  target_ = target.path;
  using Kind = OutputTarget::Kind;
  if (target.kind == Kind::kFolder) throw InputError(fmt::format("{}: is a directory", path_));
  if (target.kind == Kind::kStreamed) {
    fd_ = path_ == "-" ? STDOUT_FILENO : ::open(target_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) throw InputError(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  } else {
    remove_stale_temps(target_);
    temp_ = dir_of(target_);
    temp_ += '/';
    temp_ += temp_prefix(target_);
    temp_ += std::to_string(::getpid());
    temp_ += "-XXXXXX";
    fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);  // fills the X's in place
    if (fd_ < 0)
      throw InputError(fmt::format("{}: cannot create output file: {}", path_, std::strerror(errno)));
    slot_ = register_temp(temp_);
    ::fchmod(fd_, file_mode());
  }
  compression_ = static_cast<int>(io::compression_for_output(path_));
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  unregister_temp(slot_);
}

void AtomicFile::write(std::string_view data) {
  if (buffer_.size() + data.size() > kBufferBytes) flush_buffer();
  if (data.size() >= kBufferBytes)
    append_piece(data);
  else
    buffer_.append(data);
  start_writeback();
}

void AtomicFile::flush_buffer() {
  // A compressed file holds no empty members, but is never empty itself: an empty member
  // then, so that it decodes to nothing rather than failing as a truncated stream.
  if (!buffer_.empty() || written_ == 0 || static_cast<io::Compression>(compression_) == io::Compression::kNone)
    append_piece(buffer_);
  buffer_.clear();
}

void AtomicFile::append_piece(std::string_view data) {
  std::string compressed;
  if (const auto c = static_cast<io::Compression>(compression_); c != io::Compression::kNone) {
    compressed = io::compress_piece(c, data);
    data = compressed;
  }
  write_all(fd_, data, path_, at_end());
  written_ += data.size();
}

void AtomicFile::encode_piece(std::string& piece) const {
  const auto c = static_cast<io::Compression>(compression_);
  if (c != io::Compression::kNone && !streamed()) piece = io::compress_piece(c, piece);
}

std::optional<std::uint64_t> AtomicFile::at_end() const {
  return streamed() ? std::nullopt : std::optional<std::uint64_t>(written_);
}

std::uint64_t AtomicFile::reserve(std::uint64_t size) {
  if (streamed()) throw std::logic_error(fmt::format("{}: reserve on a streamed output", path_));
  flush_buffer();
  const std::uint64_t offset = written_;
  written_ += size;
  return offset;
}

void AtomicFile::write_at(std::uint64_t offset, std::string_view data) const {
  write_all(fd_, data, path_, offset);
#ifdef SYNC_FILE_RANGE_WRITE
  // As start_writeback does for appended data: the fsync in commit() finds it written.
  ::sync_file_range(fd_, static_cast<off_t>(offset), static_cast<off_t>(data.size()), SYNC_FILE_RANGE_WRITE);
#endif
}

// Starts writing the data out every MiB while the run goes on, so that the fsync in
// commit() has little left to wait for (and a long run does not pile up dirty pages).
// Advisory: errors surface in fsync later.
void AtomicFile::start_writeback() {
#ifdef SYNC_FILE_RANGE_WRITE
  constexpr std::uint64_t kWritebackBytes = std::uint64_t{1} << 20;
  if (streamed() || written_ - flushed_to_ < kWritebackBytes) return;
  ::sync_file_range(fd_, static_cast<off_t>(flushed_to_), static_cast<off_t>(written_ - flushed_to_),
                    SYNC_FILE_RANGE_WRITE);
  flushed_to_ = written_;
#endif
}

void AtomicFile::close_checked() {
  if (fd_ < 0) return;
  flush_buffer();
  if (fd_ == STDOUT_FILENO) {
    fd_ = -1;
    return;
  }
  // fsync surfaces delayed-allocation errors (NFS, ext4); devices and pipes have none.
  if (!streamed() && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) write_failed(path_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) write_failed(path_, errno);
}

void AtomicFile::commit() { commit_all({this}); }

void commit_all(std::span<AtomicFile* const> files) {
  // Every write error first, while the temp files can still be cleaned up...
  for (AtomicFile* f : files)
    if (!f->committed_) f->close_checked();
  // ...then the renames, which a signal handler must not interrupt half-way, and another
  // run publishing into the same folders must not interleave with.
  std::set<std::string> folders;
  for (AtomicFile* f : files)
    if (!f->committed_ && !f->streamed()) folders.insert(dir_of(f->target_));
  const FolderLocks locks(folders);
  io::begin_publishing();
  std::vector<Backup> done;
  try {
    for (AtomicFile* f : files) {
      if (f->committed_ || f->streamed()) continue;
      Backup b{f->target_, {}, ::access(f->target_.c_str(), F_OK) == 0};
      // The previous version stays reachable under a second name until every rename is done
      // (where the file system has hard links; elsewhere it cannot be put back).
      if (std::string saved = f->temp_ + ".old"; b.existed && ::link(b.target.c_str(), saved.c_str()) == 0)
        b.saved = saved;
      if (::rename(f->temp_.c_str(), f->target_.c_str()) != 0) {
        const int err = errno;
        if (!b.saved.empty()) ::unlink(b.saved.c_str());
        throw WriteError(fmt::format("{}: cannot rename the finished output into place: {}",
                                             f->path_, std::strerror(err)));
      }
      done.push_back(std::move(b));
    }
  } catch (...) {
    for (const Backup& b : done) {
      if (!b.saved.empty())
        ::rename(b.saved.c_str(), b.target.c_str());
      else if (!b.existed)
        ::unlink(b.target.c_str());
    }
    g_state.store(kIdle);
    throw;
  }
  for (const Backup& b : done)
    if (!b.saved.empty()) ::unlink(b.saved.c_str());
  for (AtomicFile* f : files) {
    f->committed_ = true;
    unregister_temp(f->slot_);
  }
  g_state.store(kIdle);
}

}  // namespace hrw
