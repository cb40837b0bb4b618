// The duplicate-key check of placement files (private to the I/O layer; the jobs use it).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace hrw::io {

// Keys seen twice, without holding every key in memory: each key goes, with its line, to
// one of several unnamed temporary files chosen by its hash; at the end each file is
// sorted in memory on its own. Memory: one file's share; disk: (key + 16 bytes) per key.
class DuplicateKeys {
 public:
  DuplicateKeys(const std::string& dir, std::optional<std::uint64_t> input_bytes);
  ~DuplicateKeys();
  void add(std::string_view key, std::uint64_t line);
  // InputError "NAME: line L: key "K" is listed twice (first on line F)" for the earliest
  // such line in one partition.
  void check(const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrw::io
