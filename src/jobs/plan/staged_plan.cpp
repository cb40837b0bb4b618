// Staged plans: a path of views from A to B (growth first, then shrinkage) and the steps
// along it, each the farthest point whose plan moves at most F (bisection); the path, why
// growth comes first and how steps are chosen: docs/plan.md, "Staged plans".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/output.hpp"
#include "hrw/plan_folder.hpp"
#include "hrw/view_json.hpp"
#include "plan/plan_outputs.hpp"

namespace hrw {

std::optional<CapBy> cap_by_named(std::string_view name) {
  if (name == "keys") return CapBy::keys;
  if (name == "bytes") return CapBy::bytes;
  if (name == "keys,bytes") return CapBy::keys_and_bytes;
  return std::nullopt;
}

namespace {

struct Ramp {
  std::string id;
  double from = 0, to = 0;  // weight in A and in B; 0: absent
  std::vector<std::pair<std::string, std::string>> labels;
  // Contract §9: the node's cut in A and in B (a node absent from one view has the other's).
  std::uint32_t cut_from = 0, cut_to = 0;

  // docs/plan.md, "Staged plans": the cut at p ∈ [0, 2] moves from A's to B's in step with
  // the path, floor(cut_A + (cut_B − cut_A) × p/2) in binary64, so every step carries cuts
  // and a cap can always be met by a smaller step.
  std::uint32_t cut_at(double p) const {
    const double a = cut_from, b = cut_to;
    return static_cast<std::uint32_t>(std::floor(a + (b - a) * (p / 2)));
  }
};

class Path {
 public:
  Path(const ClusterView& a, const ClusterView& b) : a_(&a), b_(&b) {
    for (const Node& n : b.nodes()) {
      const auto in_a = a.find(n.id);
      ramps_.push_back({n.id, in_a ? a.node(*in_a).weight : 0.0, n.weight, n.labels,
                        in_a ? a.node(*in_a).cut : n.cut, n.cut});
    }
    for (const Node& n : a.nodes())
      if (!b.find(n.id)) ramps_.push_back({n.id, n.weight, 0.0, n.labels, n.cut, n.cut});
    for (const Ramp& r : ramps_) {
      if (r.to > r.from) lambda0_ = std::min(lambda0_, r.from / r.to);
      if (r.to < r.from) mu_end_ = std::min(mu_end_, r.to / r.from);
    }
  }

  bool grows() const { return lambda0_ < 1.0; }
  bool shrinks() const { return mu_end_ < 1.0; }

  // The view at point p ∈ [0, 2]: 0 is A, 2 is B, 1 is A with the growth done.
  ClusterSpec at(double p) const {
    if (p <= 0) return spec_of(*a_);
    if (p >= 2) return spec_of(*b_);
    const double lambda = p >= 1 ? 1.0 : lambda0_ + p * (1.0 - lambda0_);
    const double mu = p <= 1 ? 1.0 : 1.0 - (p - 1.0) * (1.0 - mu_end_);
    // Every field but the weights is B's (run_staged_plan refuses views that differ in
    // seed, hash, hierarchy or rule), so a step places keys as A and B do.
    ClusterSpec s = spec_of(*b_);
    s.source = "staged view";
    s.nodes.clear();
    for (const Ramp& r : ramps_) {
      double w = r.from;
      if (r.to > r.from) w = std::max(r.from, lambda * r.to);
      if (r.to < r.from) w = std::max(r.to, mu * r.from);
      if (w > 0) s.nodes.push_back({r.id, w, r.labels, r.cut_at(p)});
    }
    return s;
  }

 private:
  const ClusterView* a_;
  const ClusterView* b_;
  std::vector<Ramp> ramps_;
  double lambda0_ = 1.0, mu_end_ = 1.0;
};

bool same_hierarchy(const ClusterView& a, const ClusterView& b) {
  if (!a.hierarchy() || !b.hierarchy()) return !a.hierarchy() && !b.hierarchy();
  return a.hierarchy()->labels() == b.hierarchy()->labels();
}

// The headline measure: bytes for a cap by bytes, keys otherwise (also by both).
std::uint64_t measured(const PlanSummary& s, CapBy by) {
  return by == CapBy::bytes ? s.moved.bytes : s.moved.keys;
}

// The caps a step must meet: ⌊F × keys⌋ and/or ⌊F × bytes⌋.
struct Caps {
  std::optional<std::uint64_t> keys, bytes;
  bool met_by(const PlanSummary& s) const {
    return (!keys || s.moved.keys <= *keys) && (!bytes || s.moved.bytes <= *bytes);
  }
};

// docs/plan.md, "Staged plans", "Versions": the last step is B, under B's version; the
// steps before it take consecutive versions the operator can keep apart from the ones
// they number next: from `first` when given, else those between A's and B's. Refused
// before any file is written when there is no such room, or a step would take A's or B's.
void number_steps(const ClusterView& from, const ClusterView& to, std::optional<std::int64_t> first,
                  std::vector<ClusterSpec>& views) {
  const std::int64_t a = from.version(), b = to.version();
  const auto between = static_cast<std::int64_t>(views.size()) - 1;  // intermediate steps
  views.back().version = b;
  if (between == 0) return;
  std::int64_t start = a + 1;
  if (first) {
    start = *first;
    if (start > INT64_MAX - (between - 1))
      throw InputError(Setting::step_versions,
                       fmt::format(": {} intermediate step view(s) from version {} pass the largest version, {}",
                                   between, start, INT64_MAX));
    const std::int64_t last = start + between - 1;
    for (const ClusterView* v : {&from, &to})
      if (v->version() >= start && v->version() <= last)
        throw InputError(Setting::step_versions,
                         fmt::format(": the {} intermediate step view(s) would take versions {} to {}, which "
                                     "include {}'s version {}",
                                     between, start, last, v->source(), v->version()));
  } else if (b <= a || b - a - 1 < between) {
    throw InputError(Setting::none,
                     fmt::format("{}: the plan has {} intermediate step view(s) and they take the versions "
                                 "between {}'s ({}) and {}'s ({}), of which there are {}: give {} a version of "
                                 "at least {} (hrw view edit --version), or the first step version with {{}}",
                                 to.source(), between, from.source(), a, to.source(), b, b > a ? b - a - 1 : 0,
                                 to.source(), a > INT64_MAX - between - 1 ? INT64_MAX : a + between + 1),
                     {Setting::step_versions});
  }
  for (std::int64_t k = 0; k < between; ++k) views[static_cast<std::size_t>(k)].version = start + k;
}

}  // namespace

std::uint64_t StagedPlan::total_moved() const {
  std::uint64_t total = 0;
  for (const StagedStep& s : steps) total += measured(s.plan, cap_by);
  return total;
}

StagedPlan run_staged_plan(const ClusterView& from, const ClusterView& to, const StagedPlanJob& job) {
  const double f = job.max_moved_fraction;
  if (!(f > 0 && f <= 1))
    throw InputError(fmt::format("the moved-fraction cap must be in (0, 1], got {}", f));
  // The steps change weights only: every other field of a step is B's (Path::at).
  const char* differs = from.seed() != to.seed()   ? "seed"
                        : from.hash() != to.hash() ? "hash mode"
                        : !same_hierarchy(from, to) ? "hierarchy"
                        : from.rule() != to.rule()  ? "rule"
                                                    : nullptr;
  if (differs)
    throw InputError(fmt::format("a staged plan needs two views that differ only in nodes and "
                                 "weights: {} and {} differ in {}{}",
                                 from.source(), to.source(), differs,
                                 // docs/plan.md, "Migrating the rule"
                                 std::string_view(differs) == "rule"
                                     ? " (a rule change cannot be split into capped steps: plan it "
                                       "alone first, then stage the node change)"
                                     : ""));
  // The whole folder (summary.json and every steps/NN/) is one publication, locked and
  // checked before any key is read (docs/plan.md, "Publication").
  PlanFolder folder(job.step.out_dir);
  StagedPlan plan;
  plan.max_moved_fraction = f;
  plan.cap_by = job.cap_by;
  const PlanJob& base = job.step;
  // One progress line for the whole plan: every pass's keys add up, the phase says which.
  std::uint64_t keys_before = 0;  // keys of the passes done
  std::string phase = "staged plan: choosing steps, pass 1";
  ProgressCallback progress;
  if (base.progress)
    progress = [&](const ProgressReport& r) {
      ProgressReport all;
      all.keys = keys_before + r.keys;
      all.bytes_consumed = r.bytes_consumed;
      all.phase = phase;
      base.progress(all);
    };
  auto measure = [&](const ClusterView& a, const ClusterView& b) {
    phase = fmt::format("staged plan: choosing steps, pass {}", ++plan.probes);
    PlanSummary s = plan_detail::measure_plan(a, b, base, progress);
    keys_before += s.read.keys;
    return s;
  };
  plan.direct = measure(from, to);
  if (job.cap_by != CapBy::keys && !plan.direct.has_bytes)
    throw InputError(fmt::format("{}: a cap by bytes needs a bytes column in the keys",
                                 base.memory ? base.memory->name : base.keys.path));
  auto cap_of = [&](std::uint64_t total) {
    return static_cast<std::uint64_t>(std::floor(f * static_cast<double>(total)));
  };
  Caps caps;
  if (job.cap_by != CapBy::bytes) caps.keys = cap_of(plan.direct.read.keys);
  if (job.cap_by != CapBy::keys) caps.bytes = cap_of(plan.direct.read.bytes);
  const char* unit = job.cap_by == CapBy::keys ? "keys" : job.cap_by == CapBy::bytes ? "bytes" : "keys and of the bytes";
  std::string cap_text;
  if (caps.keys) cap_text = fmt::format("{} of {} keys", *caps.keys, plan.direct.read.keys);
  if (caps.bytes)
    cap_text += fmt::format("{}{} of {} bytes", cap_text.empty() ? "" : ", ", *caps.bytes, plan.direct.read.bytes);

  const Path path(from, to);
  // The points of the steps, chosen before anything is written.
  std::vector<ClusterSpec> views;
  ClusterSpec current = path.at(0);
  double p = 0;
  while (p < 2) {
    const ClusterView here(current);
    auto moves_to = [&](double q, ClusterSpec& spec) {
      spec = path.at(q);
      return measure(here, ClusterView(spec));
    };
    ClusterSpec next;
    double reached = 2;
    if (!caps.met_by(moves_to(2, next))) {
      // Bisection: lo always within the cap (moves nothing at p), hi beyond it.
      double lo = p, hi = 2;
      ClusterSpec best;
      for (int probe = 0; probe < 24 && hi - lo > 1e-7; ++probe) {
        const double mid = (lo + hi) / 2;
        ClusterSpec spec;
        const PlanSummary moved = moves_to(mid, spec);
        if (caps.met_by(moved) && moved.moved.keys > 0) lo = mid, best = std::move(spec);
        else if (caps.met_by(moved)) lo = mid;
        else hi = mid;
      }
      if (best.nodes.empty())
        throw InputError(fmt::format(
            "no step moves at most {} of the {} ({}): a single key or node carries more; raise the "
            "moved-fraction cap",
            f, unit, cap_text));
      next = std::move(best);
      reached = lo;
    }
    views.push_back(std::move(next));
    current = views.back();
    p = reached;
  }
  number_steps(from, to, job.first_step_version, views);

  std::optional<ClusterView> previous;
  for (std::size_t k = 0; k < views.size(); ++k) {
    const std::string sub = fmt::format("steps/{:02}", k + 1);
    views[k].source = fmt::format("{}/{}/view.json", base.out_dir, sub);
    ClusterView view(views[k]);
    PlanJob step = base;
    step.out_dir = base.out_dir + "/" + sub;
    step.svg.clear();
    step.progress = progress;
    phase = fmt::format("staged plan: writing step {} of {}", k + 1, views.size());
    {
      AtomicFile file(folder.file(sub + "/view.json"));
      file.write(view_json(views[k]));
      file.commit();
    }
    const ClusterView& step_from = previous ? *previous : from;
    plan_detail::PlanOutputs out(folder, sub, "", step.batch_size, step.limits, {&step_from, &view, step.transitions});
    PlanSummary s = plan_detail::write_plan(validate_request(step_from, step.place),
                                            validate_request(view, step.place), step, out);
    keys_before += s.read.keys;
    plan.steps.push_back({views[k], std::move(s)});
    previous.emplace(std::move(view));
  }
  AtomicFile summary(folder.file("summary.json"));
  summary.write(staged_summary_json(plan));
  summary.commit();
  folder.publish();
  return plan;
}

}  // namespace hrw
