// Plans and checks from CURRENT.csv. Pass 1 reads the file once: every record is spilled
// (in input order) to an unnamed temporary file, every key goes to the duplicate check,
// and the holder ids are collected. The holders then form a view A (their ids, equal
// weights: only its ids matter) so that pass 2 is an ordinary plan from A to B, read back
// from the spill: the same accounting, rows, R > 1 copy rules and schedules as run_plan.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "hrw/placement_reader.hpp"
#include "spill_file.hpp"  // src/io
#include "plan/plan_outputs.hpp"
#include "plan/plan_builder.hpp"
#include "duplicate_keys.hpp"  // src/io

namespace hrw {

namespace {

struct SpilledKey {
  std::uint32_t key_size;
  std::uint64_t bytes, requests;
};

// The first pass: CURRENT.csv spilled, checked for duplicates, its holders as a view.
class CurrentPlacement {
 public:
  CurrentPlacement(const PlacementInput& in, const std::string& temp_dir, const ProgressCallback& progress)
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

  const ClusterView& view() const { return *view_; }
  const io::PlacementReader& reader() const { return reader_; }
  std::uint64_t keys() const { return keys_; }

  // Owner-level ideal from the current owners' shares to B's: ½ Σ |share_now − share_B|.
  double ideal_fraction(const ClusterView& to) const {
    std::map<std::string, double> diff;
    for (std::size_t h = 0; h < owners_.size(); ++h)
      diff[reader_.ids()[h]] += static_cast<double>(owners_[h]) / static_cast<double>(keys_);
    for (std::uint32_t n = 0; n < to.size(); ++n) diff[to.node(n).id] -= to.share(n);
    double sum = 0;
    for (auto& [id, d] : diff) sum += std::abs(d);
    return sum / 2;
  }

  // The second pass: chunks of keys with their current placement (in view()'s indices).
  bool next(KeyChunk& chunk, Placement& current) {
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

// Pass 2: every key placed in B and accounted against where it is. `make_sink` is given
// the builder (for its ids) once the holders are known.
PlanSummary plan_current(const ClusterView& to, CurrentPlacement& current, PlaceOptions place,
                         bool given_replicas, std::uint64_t batch_size,
                         const std::function<MoveSink*(const PlanBuilder&)>& make_sink,
                         const std::function<void()>& after_chunk) {
  // A view with a rule places by it (contract §8), whatever the placement's replica
  // count (a plan back to a view of another rule is a migration); without one, B gets the
  // placement's count.
  if (!to.rule()) place.replicas = current.reader().replicas();
  PlaceOptions now_place;  // the placement's own: its replica columns, no rule
  now_place.replicas = current.reader().replicas();
  const ValidRequest request = [&] {
    try {
      return validate_request(to, place);
    } catch (const InputError& e) {
      // The replica count is the placement's (its replica columns), not a setting the caller
      // gave: the message names the file, never the setting.
      if (e.setting() != Setting::replica_count || given_replicas) throw;
      throw InputError(fmt::format("{}: the placement's replica count{}", current.reader().name(), e.detail()));
    }
  }();
  const BatchPlacer placer(request);
  PlanBuilder plan(current.view(), to, now_place, place, batch_size);
  plan.without_plain_plan();  // "from" is where keys are, not a view that has cuts to drop
  MoveSink* sink = make_sink(plan);
  current.rewind();
  KeyChunk chunk;
  Placement now, target;
  while (current.next(chunk, now)) {
    placer.place(chunk.keys, target);
    plan.add(chunk, now, target, sink);
    if (after_chunk) after_chunk();
  }
  PlanSummary s = plan.finish(current.keys(), current.reader().has_bytes(), current.reader().has_requests());
  s.from_placement = current.reader().name();
  s.ideal_fraction = current.ideal_fraction(to);
  s.expected_fraction.reset();  // the current holders are not a view rendezvous placed by
  return s;
}

}  // namespace

PlanSummary run_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job) {
  PlanFolder folder(job.out_dir);
  plan_detail::PlanOutputs out(folder, "", job.svg, job.batch_size, job.limits, {nullptr, &to, job.transitions});
  CurrentPlacement current(job.current, out.dir(), job.progress);
  if (job.limits.max_bytes_per_node && !current.reader().has_bytes())
    throw InputError(fmt::format("{}: a per-node byte limit needs a bytes column in the placement",
                                 current.reader().name()));
  if (job.limits.node_bandwidth && !current.reader().has_bytes())
    throw InputError(fmt::format("{}: a node bandwidth needs a bytes column in the placement",
                                 current.reader().name()));
  auto sink_for = [&](const PlanBuilder& plan) {
    return &out.start(plan.ids(), current.reader().has_bytes(), current.reader().has_requests());
  };
  PlanSummary summary = plan_current(to, current, job.place, job.current.replicas.has_value(), job.batch_size,
                                     sink_for, [&] { out.flush(); });
  out.publish(summary);
  folder.publish();
  return summary;
}

PlanSummary measure_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job) {
  CurrentPlacement current(job.current, io::default_temp_folder(), job.progress);
  return plan_current(to, current, job.place, job.current.replicas.has_value(), job.batch_size,
                      [](const PlanBuilder&) { return nullptr; }, {});
}

PlaceOptions placement_plan_options(const ClusterView& to, const PlaceOptions& asked, GivenSettings given) {
  // The placement keeps its own replica columns, so a plan back to a view of another rule
  // (undo) is a migration.
  return to.rule() ? options_for(to, asked, given) : asked;
}

void apply_view_rule(const ClusterView& to, CheckJob& job, GivenSettings given) {
  if (!to.rule()) return;
  job.place.replicas = job.current.replicas.value_or(to.rule()->replicas);
  job.place = options_for(to, job.place, given);
  job.current.replicas = job.place.replicas;
}

namespace {

// The header of a misplaced keys' file: key,expected,actual, or R columns of each.
std::string misplaced_header(std::uint32_t r) {
  if (r == 1) return "key,expected,actual\n";
  std::string header = "key";
  for (const char* side : {"expected", "actual"})
    for (std::uint32_t k = 1; k <= r; ++k) header += fmt::format(",{}_{}", side, k);
  return header + "\n";
}

// check --cluster --misplaced: a row for every key whose holders, as a set, are not the
// view's (an owner that only changed rank is where it should be, as check counts it).
class MisplacedRows final : public MoveSink {
 public:
  MisplacedRows(AtomicFile& out, const std::vector<std::string>& ids, std::uint32_t columns)
      : out_(out), ids_(ids), columns_(columns), rows_(misplaced_header(columns)) {}
  void add_move(const KeyChunk&, std::size_t, std::uint32_t, std::uint32_t) override {}
  void key_changed(const KeyChunk& chunk, std::size_t i, std::span<const std::uint32_t> from,
                   std::span<const std::uint32_t> to) override {
    sorted_from_.assign(from.begin(), from.end());
    sorted_to_.assign(to.begin(), to.end());
    std::sort(sorted_from_.begin(), sorted_from_.end());
    std::sort(sorted_to_.begin(), sorted_to_.end());
    if (sorted_from_ == sorted_to_) return;
    csv::append_field(rows_, chunk.keys[i]);
    for (const std::span<const std::uint32_t> side : {to, from})  // expected (the view's), then actual
      for (std::uint32_t k = 0; k < columns_; ++k) {
        rows_ += ',';
        if (k < side.size() && side[k] < ids_.size()) csv::append_field(rows_, ids_[side[k]]);
      }
    rows_ += '\n';
    if (rows_.size() >= (std::size_t{1} << 20)) flush();
  }
  void flush() {
    out_.write(rows_);
    rows_.clear();
  }

 private:
  AtomicFile& out_;
  const std::vector<std::string>& ids_;
  std::uint32_t columns_;
  std::string rows_;
  std::vector<std::uint32_t> sorted_from_, sorted_to_;
};

}  // namespace

PlanSummary check_placement(const ClusterView& to, const CheckJob& job) {
  const std::string dir = job.temp_dir.empty() ? io::default_temp_folder() : job.temp_dir;
  std::optional<AtomicFile> misplaced_file;
  if (!job.misplaced.empty()) {
    // Every front end gets this: the report never replaces the placement it reports on.
    std::error_code ec;
    if (std::filesystem::equivalent(job.misplaced, job.current.path, ec))
      throw InputError(fmt::format("{}: is the placement file being checked: write the misplaced keys elsewhere",
                                   job.misplaced));
    misplaced_file.emplace(job.misplaced);  // refused before any reading if unwritable
  }
  CurrentPlacement current(job.current, dir, job.progress);
  std::optional<MisplacedRows> rows;
  PlanSummary s = plan_current(to, current, job.place, job.current.replicas.has_value(), 1,
                               [&](const PlanBuilder& plan) -> MoveSink* {
                                 if (!misplaced_file) return nullptr;
                                 // Room for both sets: the placement's and the view's (§8 rule).
                                 const std::uint32_t columns = std::max(current.reader().replicas(), job.place.replicas);
                                 return &rows.emplace(*misplaced_file, plan.ids(), columns);
                               },
                               {});
  if (misplaced_file) {
    rows->flush();
    misplaced_file->commit();
  }
  return s;
}

bool is_staged_plan(const std::string& plan_dir) { return std::filesystem::is_directory(plan_dir + "/steps"); }

std::string plan_step_dir(const std::string& plan_dir, std::uint64_t step) {
  return fmt::format("{}/steps/{:02}", plan_dir, step);
}

ProgressCheck check_plan_progress(const ProgressCheckJob& job) {
  const std::string& dir = job.plan_dir;
  namespace fs = std::filesystem;
  if (!fs::exists(dir + "/from.json"))
    throw InputError(fmt::format("{}: no from.json: not a plan folder of two views (a plan from a placement "
                                 "file, or made before plan folders held their views)", dir));
  if (!fs::exists(dir + "/transitions.csv"))
    throw InputError(fmt::format("{}: no transitions.csv: make the plan with transitions to check it by round", dir));
  const ClusterView from(load_cluster_file(dir + "/from.json"));
  const ClusterView to(load_cluster_file(dir + "/to.json"));
  const std::unordered_map<std::string, std::uint64_t> rounds = io::read_transition_rounds(dir + "/transitions.csv");
  // A round past the plan's last is a typo or another plan's folder, not "all done".
  std::uint64_t last_round = 0;
  for (const auto& [key, round] : rounds) last_round = std::max(last_round, round);
  if (job.through_round > last_round)
    throw InputError(fmt::format("{}: through round {}: the plan's last round is {} (transitions.csv)", dir,
                                 *job.through_round, last_round));
  const std::uint64_t through_round = job.through_round.value_or(last_round);
  std::optional<AtomicFile> misplaced;
  if (!job.misplaced.empty()) {
    // The report never lands in the plan it checks (a staged plan's whole folder included):
    // named as one of the plan's files, it would replace it.
    fs::path root = fs::weakly_canonical(dir);
    if (root.parent_path().filename() == "steps") root = root.parent_path().parent_path();
    const fs::path report = fs::weakly_canonical(job.misplaced);
    if (std::mismatch(root.begin(), root.end(), report.begin(), report.end()).first == root.end())
      throw InputError(fmt::format("{}: the misplaced keys' file is inside the plan folder {}: write it elsewhere",
                                   job.misplaced, root.string()));
    misplaced.emplace(job.misplaced);
  }

  const std::string temp = job.temp_dir.empty() ? io::default_temp_folder() : job.temp_dir;
  CurrentPlacement current(job.current, temp, job.progress);
  // Contract §8: the plan's views place by their own rule, as the plan that wrote them did;
  // the placement's replica count and the flags must agree with it.
  // A view without a rule takes the placement's replica count; a plan that migrates the
  // rule (each view by its own, §8) is checked against a placement with room for the larger
  // set (a key not yet moved leaves the extra columns empty).
  PlaceOptions asked = job.place;
  asked.replicas = current.reader().replicas();
  const bool both_ruled = from.rule() && to.rule();
  const PlanRequests place = options_for_plan(
      from, to, asked, {!both_ruled, !asked.distinct_label.empty(), asked.allow_partial, /*single_copy=*/true});
  const BatchPlacer in_a(place.from), in_b(place.to);
  const std::uint32_t r = current.reader().replicas();
  const std::uint32_t ra = place.from.options().replicas, rb = place.to.options().replicas;
  if (r < std::max(ra, rb))
    throw InputError(fmt::format("{}: {} replica column(s), but the plan's views hold {} and {} replicas",
                                 current.reader().name(), r, ra, rb));

  ProgressCheck out;
  out.placement = current.reader().name();
  out.plan_dir = dir;
  out.from_version = from.version();
  out.to_version = to.version();
  out.replicas = r;
  out.through_round = through_round;
  std::string rows;
  if (misplaced) rows = misplaced_header(r);
  current.rewind();
  KeyChunk chunk;
  Placement now, pa, pb;
  std::vector<std::string_view> want, have;
  while (current.next(chunk, now)) {
    in_a.place(chunk.keys, pa);
    in_b.place(chunk.keys, pb);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const std::string_view key = chunk.keys[i];
      const auto it = rounds.find(std::string(key));
      const bool moved = it != rounds.end() && it->second <= through_round;
      const ClusterView& view = moved ? to : from;
      const Placement& p = moved ? pb : pa;
      // Expected: B's holders once the key's round ran, else A's. A key whose copies have
      // begun in an earlier round but whose switch has not come still serves from A's R
      // holders (a placement file has R columns; the copies are in transitions.csv).
      auto expected = [&](std::vector<std::string_view>& ids) {
        ids.clear();
        for (std::uint32_t k = 0; k < p.replicas; ++k)
          if (const std::uint32_t n = p.node(i, k); n != kNoNode) ids.push_back(view.node(n).id);
      };
      expected(want);
      have.clear();
      for (std::uint32_t k = 0; k < r; ++k)
        if (const std::uint32_t n = now.node(i, k); n != kNoNode) have.push_back(current.view().node(n).id);
      ++out.keys;
      out.expected_moved += moved;
      const std::vector<std::string_view> have_ranked = have;
      std::sort(want.begin(), want.end());
      std::sort(have.begin(), have.end());
      if (want == have) continue;
      ++out.misplaced;
      if (!misplaced) continue;
      expected(want);  // rank order again (then the early copies), for the row
      csv::append_field(rows, key);
      for (const std::vector<std::string_view>* side :
           std::initializer_list<const std::vector<std::string_view>*>{&want, &have_ranked})
        for (std::uint32_t k = 0; k < r; ++k) {
          rows += ',';
          if (k < side->size()) csv::append_field(rows, (*side)[k]);
        }
      rows += '\n';
      if (rows.size() >= (std::size_t{1} << 20)) misplaced->write(rows), rows.clear();
    }
  }
  if (misplaced) {
    misplaced->write(rows);
    misplaced->commit();
  }
  return out;
}

}  // namespace hrw
