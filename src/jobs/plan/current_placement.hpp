// A placement file (CURRENT.csv) read for a plan or a check from it: pass 1 reads it once,
// spilling every record (in input order) to an unnamed temporary file, checking for
// duplicate keys and collecting the holder ids, which form a view (their ids, equal
// weights: only its ids matter); pass 2 reads the records back chunk by chunk.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"
#include "hrw/placement_reader.hpp"
#include "hrw/plan.hpp"
#include "spill_file.hpp"  // src/io

namespace hrw::plan_detail {

// The first pass: CURRENT.csv spilled, checked for duplicates, its holders as a view.
class CurrentPlacement {
 public:
  CurrentPlacement(const PlacementInput& in, const std::string& temp_dir, const ProgressCallback& progress);

  const ClusterView& view() const { return *view_; }
  const io::PlacementReader& reader() const { return reader_; }
  std::uint64_t keys() const { return keys_; }

  // Owner-level ideal from the current owners' shares to B's: ½ Σ |share_now − share_B|.
  double ideal_fraction(const ClusterView& to) const;

  // The second pass: chunks of keys with their current placement (in view()'s indices).
  bool next(KeyChunk& chunk, Placement& current);
  void rewind() { spill_.rewind(); }

 private:
  io::PlacementReader reader_;
  io::SpillFile spill_;
  std::size_t chunk_keys_;
  std::uint64_t keys_ = 0, read_ = 0;
  std::vector<std::uint64_t> owners_;  // keys owned per holder id
  std::optional<ClusterView> view_;
  std::vector<std::uint32_t> to_view_;  // holder id index -> view index
};

// The header of a misplaced keys' file: key,expected,actual, or R columns of each.
std::string misplaced_header(std::uint32_t r);

}  // namespace hrw::plan_detail
