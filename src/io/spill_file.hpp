// Temporary files for what does not fit in memory (schedules, duplicate checks).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace hrw::io {

// One spilled file, unlinked as soon as it is created: it vanishes when closed, however
// the process ends.
// $TMPDIR when set and not empty, else /tmp.
std::string default_temp_folder();

// A folder that is missing or unwritable, or a full disk, is an InputError "temporary
// folder "DIR": cannot ...: CAUSE" (the environment, exit 2 in the CLI), never an internal error.
class SpillFile {
 public:
  explicit SpillFile(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  void write(const void* data, std::size_t size);
  // False at the end of the file; throws when only part of `size` is left.
  bool read(void* data, std::size_t size);
  void rewind();
  std::uint64_t size() const { return written_; }

 private:
  std::string dir_;
  std::FILE* file_ = nullptr;
  std::uint64_t written_ = 0;
};

}  // namespace hrw::io
