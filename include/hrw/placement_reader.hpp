// CURRENT.csv, where each key really is: RFC 4180 with a header `key,owner` or
// `key,replica_1,…,replica_R` (any column order), optional `bytes` / `requests`. Holder ids
// are free text (ids absent from the target view are allowed); a missing replica is an
// empty cell after the present ones (a partial placement). Keys listed twice are found by
// DuplicateKeys, in flat memory.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hrw/key_source.hpp"

namespace hrw::io {

class ByteReader;
class CsvReader;

class PlacementReader {
 public:
  // Throws InputError naming the file: no `key` column, no owner/replica columns, replica
  // columns not numbered 1..R, a column named replica... that is not replica_N, or (when
  // given) a replica count other than `replicas`, or a column it does not read that is not
  // among `ignored_columns` (docs/errors.md, "CSV columns"). A UTF-8 byte-order mark is
  // skipped. next(): InputError naming the line when a bytes or requests total exceeds 2^64 - 1.
  PlacementReader(const std::string& path, std::optional<std::uint32_t> replicas,
                  const std::vector<std::string>& ignored_columns = {});
  ~PlacementReader();

  // The next keys (at most max_keys) and their holders: holders[i * R + r] indexes ids(),
  // or is kNoHolder for an empty cell. False at the end.
  bool next(KeyChunk& chunk, std::vector<std::uint32_t>& holders, std::vector<std::uint64_t>& lines,
            std::size_t max_keys);

  static constexpr std::uint32_t kNoHolder = 0xFFFFFFFFu;
  std::uint32_t replicas() const { return static_cast<std::uint32_t>(replica_cols_.size()); }
  const std::vector<std::string>& ids() const { return ids_; }  // in order of first appearance
  bool has_bytes() const { return bytes_col_ != kNone; }
  bool has_requests() const { return requests_col_ != kNone; }
  const std::string& name() const { return name_; }
  std::optional<std::uint64_t> total_bytes() const { return total_; }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::uint32_t holder(const std::string& id);
  std::uint64_t count(std::size_t col, const char* what, std::uint64_t& total) const;

  std::string name_;
  // The I/O layer's readers, private to it (src/io).
  std::unique_ptr<ByteReader> in_;
  std::unique_ptr<CsvReader> csv_;
  std::optional<std::uint64_t> total_;
  std::size_t fields_ = 0;
  std::size_t key_col_ = kNone, bytes_col_ = kNone, requests_col_ = kNone;
  std::vector<std::size_t> replica_cols_;  // rank r's column
  std::vector<std::string> ids_;
  std::unordered_map<std::string, std::uint32_t> id_index_;
  std::uint64_t keys_ = 0;
  std::uint64_t bytes_total_ = 0, requests_total_ = 0;
};

}  // namespace hrw::io
