// Plans in parts (plan_parts.hpp). A part is accounted for by the same PlanBuilder as
// `hrw plan`; the merge only adds integers, so the sum of the parts is the whole plan.
#include "hrw/plan_parts.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "hrw/output.hpp"
#include "output/move_rows.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

namespace {

using nlohmann::json;

// Keys per chunk: placement runs on every thread within a chunk.
constexpr std::size_t kPartChunk = std::size_t{1} << 16;

// Appends the chunk indices (+ base) of the keys whose set of nodes differs between the
// placements: the keys PlanBuilder counts as moved (PlanPart checks that the counts agree).
class MoveMarker {
 public:
  // Node index in `from` -> index of the same id in `to` (kNoNode when absent).
  MoveMarker(const ClusterView& from, const ClusterView& to) : to_index_(from.size(), kNoNode) {
    for (std::uint32_t i = 0; i < from.size(); ++i)
      if (const auto j = to.find(from.node(i).id)) to_index_[i] = *j;
  }

  void mark(const Placement& a, const Placement& b, std::uint64_t base,
            std::vector<std::uint64_t>& moved) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a.replicas == 1 && b.replicas == 1) {  // a rule migration (§8) compares the sets
        if (to_index_[a.owner(i)] != b.owner(i)) moved.push_back(base + i);
        continue;
      }
      set(a, i, &to_index_, set_a_);
      set(b, i, nullptr, set_b_);
      if (set_a_ != set_b_) moved.push_back(base + i);
    }
  }

 private:
  // Key i's nodes as indices of `to` (a node only in `from` keeps a distinct marker).
  static void set(const Placement& p, std::size_t i, const std::vector<std::uint32_t>* map,
                  std::vector<std::uint32_t>& out) {
    out.clear();
    for (std::uint32_t j = 0; j < p.replicas; ++j) {
      const std::uint32_t n = p.node(i, j);
      if (n == kNoNode) continue;
      out.push_back(!map ? n : (*map)[n] != kNoNode ? (*map)[n] : kNoNode - 1 - n);
    }
    std::sort(out.begin(), out.end());
  }

  std::vector<std::uint32_t> to_index_;
  std::vector<std::uint32_t> set_a_, set_b_;
};

// moves.csv rows without their batch column, and where each starts (FilePlanPart).
class UnnumberedRows : public MoveSink {
 public:
  UnnumberedRows(const MoveCsv& csv, std::string& out, std::vector<std::uint64_t>& starts)
      : csv_(&csv), out_(&out), starts_(&starts) {}
  void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override {
    starts_->push_back(out_->size());
    csv_->append_unbatched_row(*out_, chunk.keys[i], from, to, chunk.bytes_of(i), chunk.requests_of(i));
  }

 private:
  const MoveCsv* csv_;
  std::string* out_;
  std::vector<std::uint64_t>* starts_;
};

void fill_chunk(const KeyView& keys, const KeyLoads& loads, std::size_t lo, std::size_t hi,
                KeyChunk& chunk) {
  chunk.clear();
  chunk.keys.reserve(hi - lo, keys.offsets[hi] - keys.offsets[lo]);
  for (std::size_t i = lo; i < hi; ++i) chunk.keys.add(keys[i]);
  if (loads.bytes) chunk.bytes.assign(loads.bytes + lo, loads.bytes + hi);
  if (loads.requests) chunk.requests.assign(loads.requests + lo, loads.requests + hi);
  chunk.first = lo;
}

// ---- summary.json back to counts ----

std::uint64_t count(const json& object, const char* field, bool present = true) {
  if (!present) return 0;
  const auto it = object.find(field);
  if (it == object.end() || !it->is_number_unsigned())
    throw InputError(fmt::format("plan summary: \"{}\" must be a non-negative integer", field));
  return it->get<std::uint64_t>();
}

LoadCounts counts(const json& object, const std::string& keys, const std::string& bytes,
                  const std::string& requests, const PlanSummary& s) {
  return LoadCounts{count(object, keys.c_str()), count(object, bytes.c_str(), s.has_bytes),
                    count(object, requests.c_str(), s.has_requests)};
}

LoadCounts minus(const LoadCounts& a, const LoadCounts& b) {
  if (b.keys > a.keys || b.bytes > a.bytes || b.requests > a.requests)
    throw InputError("plan summary: a part moves more than it holds");
  return LoadCounts{a.keys - b.keys, a.bytes - b.bytes, a.requests - b.requests};
}

// "2", or "2 -> 3" for a plan that migrates the rule (contract §8).
std::string replicas_text(const PlanSummary& s) {
  return s.from_replicas == s.replicas ? std::to_string(s.replicas)
                                       : fmt::format("{} -> {}", s.from_replicas, s.replicas);
}

// summary.json's from_rule / to_rule (contract §8); absent: `replicas`, no distinct label.
PlacementRule rule_from(const json& in, const char* field, std::uint32_t replicas) {
  PlacementRule r{replicas, "", false};
  const auto it = in.find(field);
  if (it == in.end()) return r;
  if (!it->is_object()) throw InputError(fmt::format("plan summary: \"{}\" must be an object", field));
  r.replicas = static_cast<std::uint32_t>(count(*it, "replicas"));
  if (it->contains("distinct") && (*it)["distinct"].is_string()) r.distinct = (*it)["distinct"].get<std::string>();
  if (it->contains("partial") && (*it)["partial"].is_boolean()) r.partial = (*it)["partial"].get<bool>();
  return r;
}

// Node ids as summary.json shows them (bytes that are not UTF-8 become U+FFFD).
std::string shown_id(const std::string& id) {
  return json::parse(json(id).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

}  // namespace

PlanSummary plan_in_memory(const ValidRequest& from, const ValidRequest& to, const KeysInMemory& in,
                           std::uint64_t batch_size, const std::function<MoveSink*(const PlanBuilder&)>& sink_for,
                           const ChunkPlaced& after_chunk) {
  // One walk of the union of both views' ids per key when they allow it, as `hrw plan`.
  const PairPlacer placer(from, to);
  PlanBuilder builder(from.view(), to.view(), from.options(), to.options(), batch_size);
  MoveSink* sink = sink_for(builder);
  const KeyView& keys = in.keys;
  KeyChunk chunk;
  Placement a, b;
  for (std::size_t lo = 0; lo < keys.size(); lo += kPartChunk) {
    const std::size_t hi = std::min(keys.size(), lo + kPartChunk);
    const KeyView slice{keys.data, keys.offsets + lo, hi - lo};
    placer.place(slice, a, b);
    fill_chunk(keys, in.loads, lo, hi, chunk);
    builder.add(chunk, a, b, sink);
    if (after_chunk) after_chunk(chunk, a, b);
  }
  return builder.finish(keys.size(), in.loads.bytes != nullptr, in.loads.requests != nullptr);
}

PlanPart plan_part(const ClusterView& from, const ClusterView& to, const KeyView& keys,
                   const KeyLoads& loads, const PartOptions& options) {
  const PlaceOptions& to_place = options.place_to ? *options.place_to : options.place;
  return plan_part({validate_request(from, options.place), validate_request(to, to_place)}, keys, loads, options);
}

PlanPart plan_part(const PlanRequests& requests, const KeyView& keys, const KeyLoads& loads,
                   const PartOptions& options) {
  MoveMarker marker(requests.from.view(), requests.to.view());
  PlanPart part;
  std::optional<MoveCsv> csv;
  std::optional<BatchedMoveRows> rows;
  part.summary = plan_in_memory(
      requests.from, requests.to, {keys, loads}, options.batch_size,
      [&](const PlanBuilder& builder) -> MoveSink* {
        csv.emplace(builder.ids(), loads.bytes != nullptr, loads.requests != nullptr);
        part.header = csv->header();
        rows.emplace(*csv, options.batch_size, part.rows, options.first_row);
        return options.rows ? &*rows : nullptr;
      },
      [&](const KeyChunk& chunk, const Placement& a, const Placement& b) {
        marker.mark(a, b, chunk.first, part.moved);
      });
  if (part.moved.size() != part.summary.moved.keys)
    throw std::logic_error(fmt::format("plan part: {} keys marked as moved, {} counted",
                                       part.moved.size(), part.summary.moved.keys));
  return part;
}

FilePlanPart plan_file_part(const PlanRequests& requests, const KeyInput& keys, std::uint64_t batch_size,
                            FilePartOutputs outputs) {
  MoveMarker marker(requests.from.view(), requests.to.view());
  KeySource source(keys);
  FilePlanPart part;
  std::optional<MoveCsv> csv;
  std::optional<UnnumberedRows> rows;
  std::vector<std::uint64_t> moved;  // the chunk's moved keys (indices in the chunk)
  PlanChunkSteps steps;
  steps.after_chunk = [&](const ChunkWork& work) {
    if (!outputs.moved_keys) return;
    const KeyChunk& chunk = work.chunk;
    moved.clear();
    marker.mark(work.placements[0], work.placements[1], 0, moved);
    for (const std::uint64_t i : moved) {
      part.moved.add(chunk.keys[i]);
      if (source.has_bytes()) part.moved_bytes.push_back(chunk.bytes[i]);
      if (source.has_requests()) part.moved_requests.push_back(chunk.requests[i]);
    }
  };
  part.summary = stream_plan(requests.from, requests.to, source, {keys.chunk_keys}, batch_size,
                             [&](const PlanBuilder& builder) -> MoveSink* {
                               csv.emplace(builder.ids(), source.has_bytes(), source.has_requests());
                               part.header = csv->header();
                               rows.emplace(*csv, part.rows, part.row_starts);
                               return outputs.rows ? &*rows : nullptr;
                             },
                             steps);
  if (outputs.moved_keys && part.moved.size() != part.summary.moved.keys)
    throw std::logic_error(fmt::format("plan part: {} keys marked as moved, {} counted", part.moved.size(),
                                       part.summary.moved.keys));
  if (outputs.rows && part.row_starts.size() != part.summary.rows)
    throw std::logic_error(fmt::format("plan part: {} rows written, {} counted", part.row_starts.size(),
                                       part.summary.rows));
  return part;
}

std::string number_move_rows(std::string_view rows, std::span<const std::uint64_t> row_starts,
                             std::uint64_t first_row, std::uint64_t batch_size) {
  if (batch_size == 0) throw InputError("batch size must be at least 1");
  std::string out;
  out.reserve(rows.size() + row_starts.size() * 8);
  for (std::size_t i = 0; i < row_starts.size(); ++i) {
    const std::uint64_t end = i + 1 < row_starts.size() ? row_starts[i + 1] : rows.size();
    if (row_starts[i] > end || end > rows.size()) throw InputError("move rows: row starts out of order");
    fmt::format_to(std::back_inserter(out), "{},", batch_of_row(first_row + i, batch_size));
    out.append(rows.substr(row_starts[i], end - row_starts[i]));
  }
  return out;
}

PlanSummary parse_summary_json(std::string_view text) {
  const json in = json::parse(text, nullptr, false);
  if (!in.is_object() || !in.contains("nodes") || !in["nodes"].is_array())
    throw InputError("plan summary: not a summary.json object");
  PlanSummary s;
  auto integer = [&](const char* field) -> std::int64_t {
    const auto it = in.find(field);
    if (it == in.end() || !it->is_number_integer())
      throw InputError(fmt::format("plan summary: \"{}\" must be an integer", field));
    return it->get<std::int64_t>();
  };
  s.from_version = integer("from_version");
  s.to_version = integer("to_version");
  s.replicas = static_cast<std::uint32_t>(count(in, "replicas"));
  // Contract §8: a plan that migrates the rule names A's replica count apart.
  s.from_replicas = in.contains("from_replicas") ? static_cast<std::uint32_t>(count(in, "from_replicas")) : s.replicas;
  s.from_rule = rule_from(in, "from_rule", s.from_replicas);
  s.to_rule = rule_from(in, "to_rule", s.replicas);
  s.batch_size = count(in, "batch_size");
  s.has_bytes = in.contains("bytes");
  s.has_requests = in.contains("requests");
  s.read = counts(in, "keys", "bytes", "requests", s);
  s.moved = counts(in, "moved", "bytes_moved", "requests_moved", s);
  s.stayed = minus(s.read, s.moved);
  s.rows = count(in, "rows");
  s.batches = count(in, "batches");
  // Contract §7: with R > 1 the owner changes are counted apart from the changed sets
  // (only their key count is in the summary), and the owner ideal has its own name.
  s.owner_changes = s.single() ? s.moved : LoadCounts{count(in, "owner_changes"), 0, 0};
  const char* ideal = s.single() ? "ideal_fraction" : "owner_ideal_fraction";
  if (in.contains(ideal) && in[ideal].is_number()) s.ideal_fraction = in[ideal].get<double>();
  if (in.contains("expected_fraction") && in["expected_fraction"].is_number())
    s.expected_fraction = in["expected_fraction"].get<double>();
  if (in.contains("from_overflow_keys")) s.from_overflow = count(in, "from_overflow_keys");
  if (in.contains("to_overflow_keys")) s.to_overflow = count(in, "to_overflow_keys");
  if (in.contains("plain_moved")) s.plain_moved = counts(in, "plain_moved", "plain_bytes_moved", "plain_requests_moved", s);
  for (const json& row : in["nodes"]) {
    if (!row.is_object() || !row.contains("id") || !row["id"].is_string())
      throw InputError("plan summary: every node needs a string \"id\"");
    NodeFlow f;
    f.id = row["id"].get<std::string>();
    f.before = counts(row, "keys_before", "bytes_before", "requests_before", s);
    f.after = counts(row, "keys_after", "bytes_after", "requests_after", s);
    f.in = counts(row, "in", "bytes_in", "requests_in", s);
    f.out = counts(row, "out", "bytes_out", "requests_out", s);
    f.stayed = minus(f.before, f.out);
    s.nodes.push_back(std::move(f));
  }
  return s;
}

PlanSummary merge_summaries(const ClusterView& from, const ClusterView& to,
                            std::uint32_t replicas, std::uint64_t batch_size,
                            const std::vector<PlanSummary>& parts) {
  PlaceOptions place;
  place.replicas = replicas;
  PlanSummary total = merge_summaries(from, to, place, place, batch_size, parts);
  if (!parts.empty()) {  // the rules the parts placed by (a distinct label included)
    total.from_rule = parts.front().from_rule;
    total.to_rule = parts.front().to_rule;
  }
  return total;
}

PlanSummary merge_summaries(const ClusterView& from, const ClusterView& to, const PlaceOptions& from_place,
                            const PlaceOptions& to_place, std::uint64_t batch_size,
                            const std::vector<PlanSummary>& parts) {
  const bool has_bytes = !parts.empty() && parts.front().has_bytes;
  const bool has_requests = !parts.empty() && parts.front().has_requests;
  // The plan of no keys: versions, the union of ids, the ideal fraction, zero counts.
  PlanSummary total = PlanBuilder(from, to, from_place, to_place, batch_size).finish(0, has_bytes, has_requests);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const PlanSummary& part = parts[p];
    auto refuse = [&](const std::string& what) {
      throw InputError(fmt::format("plan part {}: {}", p, what));
    };
    if (part.from_version != total.from_version || part.to_version != total.to_version)
      refuse(fmt::format("plans v{} -> v{}, not v{} -> v{}", part.from_version, part.to_version,
                         total.from_version, total.to_version));
    if (part.replicas != total.replicas || part.from_replicas != total.from_replicas ||
        part.batch_size != total.batch_size)
      refuse(fmt::format("has replicas {} and batch size {}, not {} and {}", replicas_text(part), part.batch_size,
                         replicas_text(total), total.batch_size));
    if (part.has_bytes != has_bytes || part.has_requests != has_requests)
      refuse("has other load columns (bytes, requests) than part 0");
    if (part.nodes.size() != total.nodes.size())
      refuse(fmt::format("has {} nodes, the views' union has {}", part.nodes.size(), total.nodes.size()));
    // Checked sums (checked_sum.hpp): parts that add up past 2^64 - 1 are refused, never wrapped.
    try {
      total.read += part.read;
      total.moved += part.moved;
      total.owner_changes += part.owner_changes;
      total.stayed += part.stayed;
      add_checked(total.rows, part.rows, "rows");
      // Contract §9: the overflow keys of a view with cuts, summed over the parts.
      if (total.from_overflow.has_value() != part.from_overflow.has_value() ||
          total.to_overflow.has_value() != part.to_overflow.has_value())
        refuse("counts overflow keys (contract section 9) for other views than the plan's");
      if (total.from_overflow) add_checked(*total.from_overflow, *part.from_overflow, "from_overflow_keys");
      if (total.to_overflow) add_checked(*total.to_overflow, *part.to_overflow, "to_overflow_keys");
      if (total.plain_moved.has_value() != part.plain_moved.has_value())
        refuse("counts the plan without cuts (contract section 9) for other views than the plan's");
      if (total.plain_moved) *total.plain_moved += *part.plain_moved;
      for (std::size_t u = 0; u < total.nodes.size(); ++u) {
        NodeFlow& f = total.nodes[u];
        const NodeFlow& g = part.nodes[u];
        if (g.id != f.id && g.id != shown_id(f.id)) refuse(fmt::format("node {} is not {}", u, quote_for_message(f.id)));
        f.before += g.before, f.after += g.after, f.in += g.in, f.out += g.out, f.stayed += g.stayed;
      }
    } catch (const InputError& e) {
      if (std::string_view(e.what()).starts_with("plan part ")) throw;
      refuse(e.what());
    }
  }
  total.batches = batch_count(total.rows, total.batch_size, total.moved.keys);
  return total;
}

}  // namespace hrw
