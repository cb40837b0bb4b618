// All-or-nothing output files. Data goes to a temp file in the destination's folder (so
// the rename cannot cross file systems) and is renamed over the destination only when
// complete. An error unwinds through the destructor, which removes the temp file; SIGINT,
// SIGTERM, SIGHUP and SIGPIPE remove every live temp file and exit 128+signal (130 for
// SIGINT). So an interrupted run never leaves a partial output behind.
#pragma once
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

namespace hrw {

class AtomicFile {
 public:
  // "-" writes stdout directly (nothing to rename). Throws InputError naming the path when
  // the temp file cannot be created (missing folder, a path under a regular file...).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws std::runtime_error naming the path on a write error (e.g. a full disk).
  void write(std::string_view data);
  const std::string& path() const { return path_; }

  // Flushes, syncs, closes and renames. Every error (ENOSPC surfaces here at the latest)
  // throws, so a truncated file is never reported as written.
  void commit();

 private:
  void start_writeback();
  friend void commit_all(std::initializer_list<AtomicFile*> files);
  void close_checked();
  void publish();
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  std::uint64_t written_ = 0;     // bytes handed to write()
  std::uint64_t flushed_to_ = 0;  // bytes whose writeback has been started
  int slot_ = -1;  // index in the signal handler's table of temp files
  bool committed_ = false;
};

// Commits several files as one step: a signal arriving meanwhile is held until all are
// renamed, so a reader never sees one of them without the others.
void commit_all(std::initializer_list<AtomicFile*> files);

// Creates `dir` and its parents if missing; InputError naming it when that fails (e.g. a
// path under a regular file).
void make_output_dir(const std::string& dir);

// Installs the cleanup handlers (idempotent; AtomicFile does it on first use).
void install_temp_file_cleanup();

}  // namespace hrw
