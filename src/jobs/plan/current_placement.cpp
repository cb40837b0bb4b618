#include "plan/current_placement.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "duplicate_keys.hpp"  // src/io

namespace hrw::plan_detail {

namespace {

struct SpilledKey {
  std::uint32_t key_size;
  std::uint64_t bytes, requests;
};

}  // namespace

CurrentPlacement::CurrentPlacement(const PlacementInput& in, const std::string& temp_dir,
                                   const ProgressCallback& progress)
    : reader_(in.path, in.replicas, in.ignored_columns), spill_(temp_dir), chunk_keys_(in.chunk_keys) {
  io::DuplicateKeys duplicates(temp_dir, reader_.total_bytes());
  KeyChunk chunk;
  std::vector<std::uint32_t> holders;
  std::vector<std::uint64_t> lines;
  const std::uint32_t r = reader_.replicas();
  while (reader_.next(chunk, holders, lines, chunk_keys_)) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const std::string_view key = chunk.keys[i];
      duplicates.add(key, lines[i]);
      const SpilledKey head{static_cast<std::uint32_t>(key.size()), chunk.bytes_of(i), chunk.requests_of(i)};
      spill_.write(&head, sizeof head);
      spill_.write(&holders[i * r], r * sizeof(std::uint32_t));
      spill_.write(key.data(), key.size());
      if (owners_.size() <= holders[i * r]) owners_.resize(holders[i * r] + 1, 0);
      ++owners_[holders[i * r]];
      ++keys_;
    }
    if (progress) progress({keys_, chunk.input_offset, reader_.total_bytes()});
  }
  duplicates.check(reader_.name());
  if (keys_ == 0) throw InputError(fmt::format("{}: the placement lists no keys", reader_.name()));
  ClusterSpec spec;
  spec.source = reader_.name();
  for (const std::string& id : reader_.ids()) spec.nodes.push_back({id, std::nullopt, {}});
  view_.emplace(spec);
  for (const std::string& id : reader_.ids()) to_view_.push_back(*view_->find(id));
}

double CurrentPlacement::ideal_fraction(const ClusterView& to) const {
  std::map<std::string, double> diff;
  for (std::size_t h = 0; h < owners_.size(); ++h)
    diff[reader_.ids()[h]] += static_cast<double>(owners_[h]) / static_cast<double>(keys_);
  for (std::uint32_t n = 0; n < to.size(); ++n) diff[to.node(n).id] -= to.share(n);
  double sum = 0;
  for (auto& [id, d] : diff) sum += std::abs(d);
  return sum / 2;
}

bool CurrentPlacement::next(KeyChunk& chunk, Placement& current) {
  const std::uint32_t r = reader_.replicas();
  chunk.clear();
  chunk.first = read_;
  current.replicas = r;
  current.nodes.clear();
  std::vector<std::uint32_t> holders(r);
  SpilledKey head;
  std::string key;
  while (chunk.size() < chunk_keys_ && spill_.read(&head, sizeof head)) {
    key.resize(head.key_size);
    if (!spill_.read(holders.data(), r * sizeof(std::uint32_t)) ||
        (head.key_size && !spill_.read(key.data(), head.key_size)))
      throw std::runtime_error("temporary file: short read");
    chunk.keys.add(key);
    if (reader_.has_bytes()) chunk.bytes.push_back(head.bytes);
    if (reader_.has_requests()) chunk.requests.push_back(head.requests);
    for (std::uint32_t h : holders)
      current.nodes.push_back(h == io::PlacementReader::kNoHolder ? kNoNode : to_view_[h]);
    ++read_;
  }
  return chunk.size() > 0;
}

std::string misplaced_header(std::uint32_t r) {
  if (r == 1) return "key,expected,actual\n";
  std::string header = "key";
  for (const char* side : {"expected", "actual"})
    for (std::uint32_t k = 1; k <= r; ++k) header += fmt::format(",{}_{}", side, k);
  return header + "\n";
}

}  // namespace hrw::plan_detail
