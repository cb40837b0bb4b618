#include "hrw/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw {

namespace {

// The signal handler may only touch async-signal-safe state: a fixed table of C strings,
// each published by a flag written after the path.
constexpr int kMaxTempFiles = 32;
char g_paths[kMaxTempFiles][PATH_MAX];
std::atomic<bool> g_used[kMaxTempFiles];
std::atomic<bool> g_committing{false};
std::atomic<int> g_pending_signal{0};
std::mutex g_table_mutex;  // registration only, never taken by the handler

void remove_temp_files() {
  for (int i = 0; i < kMaxTempFiles; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
}

extern "C" void on_fatal_signal(int sig) {
  // During commit_all the renames must all happen: hold the signal until they are done.
  if (g_committing.load()) {
    g_pending_signal.store(sig);
    return;
  }
  remove_temp_files();
  ::_exit(128 + sig);
}

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

void unregister_temp(int slot) {
  if (slot >= 0) g_used[slot].store(false);
}

std::string temp_path_for(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
  return dir + "/." + p.filename().string() + ".tmp-XXXXXX";
}

[[noreturn]] void write_failed(const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{}: write failed: {}", path, std::strerror(err)));
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

}  // namespace

void make_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError(fmt::format("{}: cannot create the output folder: {}", dir,
                                 ec ? ec.message() : "not a directory"));
}

void install_temp_file_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::sigaction(sig, &sa, nullptr);
  });
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    file_ = stdout;
    return;
  }
  install_temp_file_cleanup();
  temp_ = temp_path_for(path_);
  const int fd = ::mkostemp(temp_.data(), O_CLOEXEC);  // fills the X's in place
  if (fd < 0)
    throw InputError(fmt::format("{}: cannot create output file: {}", path_, std::strerror(errno)));
  slot_ = register_temp(temp_);
  ::fchmod(fd, file_mode());
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
    write_failed(path_, err);
  }
  std::setvbuf(file_, nullptr, _IOFBF, std::size_t{1} << 20);
}

AtomicFile::~AtomicFile() {
  if (committed_ || path_ == "-") return;
  if (file_) std::fclose(file_);
  ::unlink(temp_.c_str());
  unregister_temp(slot_);
}

void AtomicFile::write(std::string_view data) {
  if (data.empty()) return;
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) write_failed(path_, errno);
  written_ += data.size();
  start_writeback();
}

// Starts writing the data out every few MiB while the run goes on, so that the fsync in
// commit() has little left to wait for (and a long run does not pile up dirty pages).
// Advisory: errors surface in fflush/fsync later.
void AtomicFile::start_writeback() {
#ifdef SYNC_FILE_RANGE_WRITE
  constexpr std::uint64_t kWritebackBytes = std::uint64_t{1} << 20;
  if (path_ == "-" || written_ - flushed_to_ < kWritebackBytes) return;
  if (std::fflush(file_) != 0) write_failed(path_, errno);
  ::sync_file_range(::fileno(file_), static_cast<off_t>(flushed_to_),
                    static_cast<off_t>(written_ - flushed_to_), SYNC_FILE_RANGE_WRITE);
  flushed_to_ = written_;
#endif
}

void AtomicFile::close_checked() {
  if (!file_) return;
  if (path_ == "-") {
    file_ = nullptr;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) write_failed("<stdout>", errno);
    return;
  }
  // fflush surfaces ENOSPC from buffered data, fsync from delayed allocation (NFS, ext4).
  if (std::fflush(file_) != 0) write_failed(path_, errno);
  if (::fsync(::fileno(file_)) != 0 && errno != EINVAL && errno != EROFS) write_failed(path_, errno);
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) write_failed(path_, errno);
}

void AtomicFile::commit() {
  if (committed_) return;
  close_checked();
  publish();
}

void AtomicFile::publish() {
  if (path_ != "-") {
    if (::rename(temp_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error(
          fmt::format("{}: cannot rename the finished output into place: {}", path_, std::strerror(errno)));
    unregister_temp(slot_);
  }
  committed_ = true;
}

void commit_all(std::initializer_list<AtomicFile*> files) {
  // Every write error first, while the temp files can still be cleaned up...
  for (AtomicFile* f : files)
    if (!f->committed_) f->close_checked();
  // ...then the renames, which a signal must not split.
  g_committing.store(true);
  try {
    for (AtomicFile* f : files)
      if (!f->committed_) f->publish();
  } catch (...) {
    g_committing.store(false);
    throw;
  }
  g_committing.store(false);
  if (const int sig = g_pending_signal.load()) ::_exit(128 + sig);
}

}  // namespace hrw
