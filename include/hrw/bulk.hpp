// Bulk placement of a streamed keyspace: KeySource chunks -> BatchPlacer (for one or more
// views) -> the command's digest (parallel) and consume (in input order) steps. `hrw place`
// and `hrw plan` are two users of this one path.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hrw/checked_sum.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"

namespace hrw {

// Keys, bytes and requests added up: what reports count per node.
struct LoadCounts {
  std::uint64_t keys = 0;
  std::uint64_t bytes = 0;
  std::uint64_t requests = 0;

  // Checked sums (checked_sum.hpp): InputError "the bytes total exceeds 2^64 - 1", never a wrap.
  void add(const KeyChunk& chunk, std::size_t i) {
    add_checked(keys, 1, "keys");
    add_checked(bytes, chunk.bytes_of(i), "bytes");
    add_checked(requests, chunk.requests_of(i), "requests");
  }
  LoadCounts& operator+=(const LoadCounts& o) {
    add_checked(keys, o.keys, "keys");
    add_checked(bytes, o.bytes, "bytes");
    add_checked(requests, o.requests, "requests");
    return *this;
  }
  bool operator==(const LoadCounts&) const = default;
};

struct KeyInput {
  std::string path;                 // "-": stdin
  std::optional<KeyFormat> format;  // default: from the file name
  std::size_t chunk_keys = kDefaultChunkKeys;
  std::optional<ByteRange> range;   // one part of the file only (ByteRange)
  std::vector<std::string> ignored_columns;  // CSV header columns to skip (docs/errors.md, "CSV columns")

  // The format asked for, else the one the name implies. The name rule runs only when no
  // format was given: it refuses JSON-looking names that --keys-format lines allows.
  KeyFormat resolved_format() const { return format ? *format : key_format_for(path); }
};

}  // namespace hrw
