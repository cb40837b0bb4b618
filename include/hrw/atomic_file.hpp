// All-or-nothing output files. What is at the output path decides how it is written:
// - a regular file or nothing: data goes to a temp file `.NAME.tmp-PID-XXXXXX` in the same
//   folder (so the rename cannot cross file systems), renamed over the path only when
//   complete. An error unwinds through the destructor, which removes the temp file;
// - a symlink: followed; its target is replaced as above and the link is kept;
// - "-", a character device, a FIFO, a socket or a /proc/self/fd/N-like path (/dev/stdout):
//   streamed, written in place as it comes (there is nothing to rename over);
// - a folder: refused (InputError).
// A path whose name ends in ".gz" or ".zst" is written gzip- or zstd-compressed, as a
// series of whole members or frames (docs/errors.md, "Compressed files").
// Temp files of a run that died (its PID no longer exists) are removed by the next run
// writing the same output. The library installs no signal handler: a program that wants
// interrupted runs to leave nothing behind calls remove_temp_files_now() from its own.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hrw {

class AtomicFile {
 public:
  // Throws InputError naming the path when it cannot be written (missing folder, a path
  // under a regular file, a folder...).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws std::runtime_error naming the path on a write error (e.g. a full disk).
  void write(std::string_view data);
  // A file written whole (not streamed) only: the place of the next `size` bytes, to be
  // written by write_at. Called in output order, it costs no copy, so the bytes of many
  // pieces can be written by several threads at once (write_at is safe to call from any
  // thread, each piece once, before commit()). Later write() calls append after them.
  // The pieces of a compressed file are first passed through encode_piece.
  std::uint64_t reserve(std::uint64_t size);
  void write_at(std::uint64_t offset, std::string_view data) const;
  // A piece for reserve/write_at, compressed in place when the file is (a streamed file's
  // pieces go through write(), which compresses them itself: left as they are). Safe to
  // call from any thread.
  void encode_piece(std::string& piece) const;
  const std::string& path() const { return path_; }
  bool streamed() const { return temp_.empty(); }

  // Flushes, syncs, closes and renames. Every error (ENOSPC surfaces here at the latest)
  // throws, so a truncated file is never reported as written.
  void commit();

 private:
  friend void commit_all(std::span<AtomicFile* const> files);
  void flush_buffer();
  // Writes `data` at the end: as it is, or as one whole member / frame of a compressed file.
  void append_piece(std::string_view data);
  std::optional<std::uint64_t> at_end() const;  // where write() appends; nullopt: streamed
  void start_writeback();
  void close_checked();
  std::string path_;    // as given, for messages
  std::string target_;  // what the rename replaces (symlinks resolved)
  std::string temp_;    // empty when streamed
  std::string buffer_;
  int fd_ = -1;
  std::uint64_t written_ = 0;     // bytes written to fd_
  std::uint64_t flushed_to_ = 0;  // bytes whose writeback has been started
  int slot_ = -1;  // index in the table of live temp files
  int compression_ = 0;  // io::Compression, from the path's name
  bool committed_ = false;
};

// Commits several files as one step: every write error surfaces before any rename; if a
// rename fails the files already renamed are put back (the previous versions restored), so
// the folder holds either all the new outputs or all the old ones. Streamed outputs cannot
// be taken back: they are flushed first, before any rename.
void commit_all(std::span<AtomicFile* const> files);
inline void commit_all(std::initializer_list<AtomicFile*> files) {
  commit_all(std::span<AtomicFile* const>(files.begin(), files.size()));
}

// Creates `dir` and its parents if missing; InputError naming it when that fails (e.g. a
// path under a regular file).
void make_output_dir(const std::string& dir);

// Async-signal-safe: removes every live temp file and returns true. While commit_all is
// renaming it removes nothing and returns false: exiting then would publish only some of
// the outputs, so the caller should let the run finish and exit afterwards.
bool remove_temp_files_now() noexcept;

}  // namespace hrw
