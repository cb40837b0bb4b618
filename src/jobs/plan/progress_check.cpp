// hrw check --plan (docs/plan.md, "Checking progress and undoing"): after rounds 1..N of a
// plan, B's holders for the keys whose round is at most N and A's for the others. A's
// holders come from DIR/from.json, or, for a plan made from a placement file, from the
// plan's own rows: the nodes a key loses and keeps.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/atomic_file.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/plan.hpp"
#include "hrw/reference.hpp"
#include "plan/current_placement.hpp"
#include "plan_rows_reader.hpp"  // src/io

namespace hrw {

namespace fs = std::filesystem;

namespace {

// A plan from a placement file names it in summary.json (from_placement); "" otherwise.
std::string from_placement_of(const std::string& dir) {
  std::ifstream in(dir + "/summary.json", std::ios::binary);
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  const auto it = summary.is_object() ? summary.find("from_placement") : summary.end();
  return it != summary.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The misplaced keys' file never lands in the plan it checks (a staged plan's whole folder
// included): named as one of the plan's files, it would replace it.
void refuse_report_inside(const std::string& dir, const std::string& report_path) {
  fs::path root = fs::weakly_canonical(dir);
  if (root.parent_path().filename() == "steps") root = root.parent_path().parent_path();
  const fs::path report = fs::weakly_canonical(report_path);
  if (std::mismatch(root.begin(), root.end(), report.begin(), report.end()).first == root.end())
    throw InputError(fmt::format("{}: the misplaced keys' file is inside the plan folder {}: write it elsewhere",
                                 report_path, root.string()));
}

}  // namespace

ProgressCheck check_plan_progress(const ProgressCheckJob& job) {
  const std::string& dir = job.plan_dir;
  if (!fs::exists(dir + "/to.json"))
    throw InputError(fmt::format("{}: no to.json: not a plan folder (or one made before plan folders held their "
                                 "views)", dir));
  const bool has_from = fs::exists(dir + "/from.json");
  const std::string from_placement = has_from ? std::string() : from_placement_of(dir);
  if (!has_from && from_placement.empty())
    throw InputError(fmt::format("{}: no from.json, and summary.json names no placement file: not a plan folder of "
                                 "two views or of a placement file", dir));
  // Each key's round: transitions.csv when the plan has one, else moves.csv's batches
  // (every key with a copy to make has a row there).
  const bool has_transitions = fs::exists(dir + "/transitions.csv");
  const std::string rows_file = dir + (has_transitions ? "/transitions.csv" : "/moves.csv");
  if (!has_transitions && !fs::exists(rows_file))
    throw InputError(fmt::format("{}: neither transitions.csv nor moves.csv: not a plan folder", dir));
  const io::PlanChanges changes = has_transitions ? io::read_transitions(rows_file) : io::read_moves(rows_file);
  // A round past the plan's last is a typo or another plan's folder, not "all done".
  std::uint64_t last_round = 0;
  for (const auto& [key, change] : changes) last_round = std::max(last_round, change.round);
  if (job.through_round > last_round)
    throw InputError(fmt::format("{}: through round {}: the plan's last round is {} ({})", dir, *job.through_round,
                                 last_round, fs::path(rows_file).filename().string()));
  const std::uint64_t through_round = job.through_round.value_or(last_round);
  std::optional<AtomicFile> misplaced;
  if (!job.misplaced.empty()) {
    refuse_report_inside(dir, job.misplaced);
    misplaced.emplace(job.misplaced);
  }

  const std::string temp = job.temp_dir.empty() ? io::default_temp_folder() : job.temp_dir;
  plan_detail::CurrentPlacement current(job.current, temp, job.progress);
  const std::uint32_t r = current.reader().replicas();
  std::optional<ClusterView> from;
  if (has_from) from.emplace(load_cluster_file(dir + "/from.json"));
  const ClusterView to(load_cluster_file(dir + "/to.json"));
  // Contract §8: the plan's views place by their own rule, as the plan that wrote them did;
  // the placement's replica count and the flags must agree with it. A view without a rule
  // takes the placement's replica count; a plan that migrates the rule (each view by its
  // own, §8) is checked against a placement with room for the larger set (a key not yet
  // moved leaves the extra columns empty).
  PlaceOptions asked = job.place;
  asked.replicas = r;
  // The replica count is the placement's columns, a setting given only for a view without
  // a rule.
  const GivenSettings given{from ? !(from->rule() && to.rule()) : !to.rule(), !asked.distinct_label.empty(),
                            asked.allow_partial, /*single_copy=*/true};
  std::optional<PlanRequests> both;
  std::optional<ValidRequest> b_only;
  if (from)
    both.emplace(options_for_plan(*from, to, asked, given));
  else
    b_only.emplace(validate_request(to, placement_plan_options(to, asked, given)));
  const ValidRequest& request_b = both ? both->to : *b_only;
  const std::uint32_t ra = both ? both->from.options().replicas : r, rb = request_b.options().replicas;
  if (r < std::max(ra, rb))
    throw InputError(fmt::format("{}: {} replica column(s), but the plan's views hold {} and {} replicas",
                                 current.reader().name(), r, ra, rb));
  // Without from.json, A's holders of a changed key are B's less its copies plus its
  // retires: with R > 1 only transitions.csv lists the retires.
  if (!from && !has_transitions && std::max(r, rb) > 1)
    throw InputError(fmt::format("{}: a plan from a placement file with R > 1 is checked from its transitions.csv "
                                 "(only it lists the replicas a key loses): make the plan with --transitions", dir));
  std::optional<BatchPlacer> in_a;
  if (both) in_a.emplace(both->from);
  const BatchPlacer in_b(request_b);

  ProgressCheck out;
  out.placement = current.reader().name();
  out.plan_dir = dir;
  out.from_version = from ? from->version() : 0;
  out.from_placement = from_placement;
  out.to_version = to.version();
  out.replicas = r;
  out.through_round = through_round;
  std::string rows;
  if (misplaced) rows = plan_detail::misplaced_header(r);
  current.rewind();
  KeyChunk chunk;
  Placement now, pa, pb;
  std::vector<std::string_view> want, have, in_b_set;
  while (current.next(chunk, now)) {
    if (in_a) in_a->place(chunk.keys, pa);
    in_b.place(chunk.keys, pb);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const std::string_view key = chunk.keys[i];
      const auto it = changes.find(std::string(key));
      const bool moved = it != changes.end() && it->second.round <= through_round;
      auto holders = [&](const ClusterView& view, const Placement& p, std::vector<std::string_view>& ids) {
        ids.clear();
        for (std::uint32_t k = 0; k < p.replicas; ++k)
          if (const std::uint32_t n = p.node(i, k); n != kNoNode) ids.push_back(view.node(n).id);
      };
      // Expected: B's holders once the key's round ran, else A's. A key whose copies have
      // begun in an earlier round but whose switch has not come still serves from A's R
      // holders (a placement file has R columns; the copies are in transitions.csv).
      auto expected = [&](std::vector<std::string_view>& ids) {
        if (moved || (!from && it == changes.end())) return holders(to, pb, ids);
        if (from) return holders(*from, pa, ids);
        // A from the plan's rows: B's holders but the copies (in B's rank order), then the
        // retired ones; R = 1 from moves.csv: the node the key leaves.
        ids.clear();
        const io::KeyChange& change = it->second;
        if (!has_transitions) {
          ids.assign(change.sources.begin(), change.sources.end());
          return;
        }
        holders(to, pb, in_b_set);
        for (std::string_view id : in_b_set)
          if (std::find(change.gained.begin(), change.gained.end(), id) == change.gained.end()) ids.push_back(id);
        ids.insert(ids.end(), change.lost.begin(), change.lost.end());
      };
      expected(want);
      if (from && it == changes.end() && !has_transitions) {
        // moves.csv has a row for every key with a copy to make; a key that A and B place
        // on other sets without one only loses replicas, and its round is in
        // transitions.csv alone.
        holders(to, pb, in_b_set);
        std::vector<std::string_view> a_sorted = want, b_sorted = in_b_set;
        std::sort(a_sorted.begin(), a_sorted.end());
        std::sort(b_sorted.begin(), b_sorted.end());
        if (a_sorted != b_sorted)
          throw InputError(fmt::format("{}: key {}: from.json and to.json hold it on other nodes but moves.csv has "
                                       "no row for it (it only loses replicas): its round is in transitions.csv "
                                       "only: make the plan with --transitions",
                                       dir, quote_for_message(key)));
      }
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

bool is_staged_plan(const std::string& plan_dir) { return fs::is_directory(plan_dir + "/steps"); }

std::string plan_step_dir(const std::string& plan_dir, std::uint64_t step) {
  return fmt::format("{}/steps/{:02}", plan_dir, step);
}

}  // namespace hrw
