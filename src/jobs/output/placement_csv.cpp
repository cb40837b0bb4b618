#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "hrw/raw_buffer.hpp"

#include "hrw/csv.hpp"
#include "hrw/output.hpp"

namespace hrw {

PlacementCsv::PlacementCsv(const ClusterView& view, std::uint32_t replicas, bool with_bytes, bool with_requests)
    : replicas_(replicas), with_bytes_(with_bytes), with_requests_(with_requests) {
  for (auto& node : view.nodes()) {
    ids_.push_back(csv::quoted(node.id));
    longest_id_ = std::max(longest_id_, ids_.back().size());
  }
}

std::string PlacementCsv::header() const {
  std::string h = "key";
  if (replicas_ == 1) h += ",owner";
  for (std::uint32_t r = 1; replicas_ > 1 && r <= replicas_; ++r) h += fmt::format(",replica_{}", r);
  if (with_bytes_) h += ",bytes";
  if (with_requests_) h += ",requests";
  return h + "\n";
}

namespace {

char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

}  // namespace

// Formatting the rows costs a place more CPU time than placing the keys, so a chunk's rows are
// written through a pointer into room for their longest form (every key quoted, each quote
// doubled, the longest id, 20-digit counts), then appended to `out` in one copy, instead
// of a std::string append per field.
void PlacementCsv::append_rows(std::string& out, const KeyChunk& chunk, const Placement& placement) const {
  const std::size_t n = chunk.size();
  if (n == 0) return;
  const std::size_t per_row = 2 + replicas_ * (1 + longest_id_) + (with_bytes_ + with_requests_) * 21 + 1;
  thread_local detail::RawBuffer<char> room;
  room.grow(2 * chunk.keys.byte_size() + n * per_row, 0);
  char* const begin = room.data();
  char* p = begin;
  for (std::size_t i = 0; i < n; ++i) {
    p = csv::write_field(p, chunk.keys[i]);
    for (std::uint32_t r = 0; r < replicas_; ++r) {
      *p++ = ',';
      const std::uint32_t node = placement.node(i, r);
      if (node != kNoNode) p = put(p, ids_[node]);  // partial: empty cell
    }
    if (with_bytes_) p = fmt::format_to(p, ",{}", chunk.bytes_of(i));
    if (with_requests_) p = fmt::format_to(p, ",{}", chunk.requests_of(i));
    *p++ = '\n';
  }
  out.append(begin, static_cast<std::size_t>(p - begin));
}

}  // namespace hrw
