// The one validation of a placement request (contract §3): every engine, command and
// binding calls it before placing, and the reference then computes without re-checking.
#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"

namespace hrw {

ValidRequest validate_request(const ClusterView& view, const PlaceOptions& options) {
  const std::uint32_t r = options.replicas;
  if (r < 1) throw InputError(Setting::replica_count, fmt::format(" must be at least 1, got {}", r));
  if (r > view.size())
    throw InputError(Setting::replica_count, fmt::format(" {} exceeds the {} node(s) of {}", r,
                                                         view.size(), view.source()));
  if (const Hierarchy* h = view.hierarchy();
      h && !options.distinct_label.empty() && !h->level_of(options.distinct_label)) {
    std::string levels;
    for (const std::string& l : h->labels()) levels += (levels.empty() ? "" : ", ") + l;
    throw InputError(Setting::distinct_label,
                     fmt::format(" {} is not a level of the hierarchy of {} ({}): with a "
                                 "hierarchy, failure domains are its buckets",
                                 quote_for_message(options.distinct_label), view.source(), levels));
  }
  if (!options.distinct_label.empty() && !view.hierarchy() &&
      view.label_coverage(options.distinct_label).lacking == view.size())
    throw InputError(Setting::distinct_label,
                     fmt::format(" {} is a label no node of {} carries ({})",
                                 quote_for_message(options.distinct_label), view.source(),
                                 view.label_list()));
  if (!options.distinct_label.empty() && !options.allow_partial) {
    const std::uint32_t domains = view.domain_count(options.distinct_label);
    if (domains < r) throw reference::too_few_domains(view, r, options.distinct_label, domains);
  }
  return ValidRequest(view, options);
}

std::optional<std::string> distinct_warning(const ClusterView& view, const PlaceOptions& options) {
  if (options.distinct_label.empty()) return std::nullopt;
  const LabelCoverage c = view.label_coverage(options.distinct_label);
  if (c.lacking == 0 || c.lacking == view.size()) return std::nullopt;
  return fmt::format("{} of the {} nodes of {} lack the distinct label {} (the first: {}); each "
                     "of them is a failure domain of its own",
                     c.lacking, view.size(), view.source(), quote_for_message(options.distinct_label),
                     quote_for_message(view.node(c.first_lacking).id));
}

PlaceOptions options_for(const ClusterView& view, const PlaceOptions& asked, GivenSettings given) {
  // An empty label given is a variable left unset, not a wish for no failure domain: taken
  // as "none" it would let replicas share a zone without a word.
  if (given.distinct && asked.distinct_label.empty())
    throw InputError(Setting::distinct_label, " is empty: an empty label names no failure domain (leave it out for none)");
  if (!view.rule()) return asked;
  const PlacementRule& rule = *view.rule();
  auto contradiction = [&](Setting s, const std::string& asked_text, const std::string& rule_text) {
    return InputError(s, fmt::format(" {} contradicts the rule of {} ({})", asked_text, view.source(),
                                     rule_text));
  };
  if (given.replicas && asked.replicas != rule.replicas)
    throw contradiction(Setting::replica_count, std::to_string(asked.replicas),
                        fmt::format("replicas {}", rule.replicas));
  if (given.distinct && asked.distinct_label != rule.distinct)
    throw contradiction(Setting::distinct_label, quote_for_message(asked.distinct_label),
                        rule.distinct.empty() ? "no distinct label"
                                              : "distinct " + quote_for_message(rule.distinct));
  if (given.partial && asked.allow_partial != rule.partial)
    throw contradiction(Setting::partial_results, asked.allow_partial ? "on" : "off",
                        rule.partial ? "partial" : "not partial");
  PlaceOptions o = asked;
  o.replicas = rule.replicas;
  o.distinct_label = rule.distinct;
  o.allow_partial = rule.partial;
  return o;
}

PlacementRule rule_of(const PlaceOptions& options) {
  return PlacementRule{options.replicas, options.distinct_label, options.allow_partial};
}

PlanRequests options_for_plan(const ClusterView& a, const ClusterView& b, const PlaceOptions& asked,
                              GivenSettings given) {
  // A version names one view (docs/plan.md, "Versions"): two that differ under one version
  // are two clusters a router cannot tell apart.
  if (a.version() == b.version() && view_json(a) != view_json(b))
    throw InputError(fmt::format("{}: version {} is also {}'s, but the two views differ: give the changed view a "
                                 "new version",
                                 b.source(), b.version(), a.source()));
  PlanRequests r{validate_request(a, options_for(a, asked, given)), validate_request(b, options_for(b, asked, given))};
  // Ceph guards a pool of size 1 the same way: one copy of every key is asked for by name.
  const std::uint32_t ra = r.from.options().replicas, rb = r.to.options().replicas;
  if (rb < 2 && ra >= 2 && !given.single_copy)
    throw InputError(Setting::none,
                     fmt::format("{}: {} replica of each key where {} keeps {}: a plan to a single copy of every key "
                                 "is asked for by name ({})",
                                 b.source(), rb, a.source(), ra, "{}"),
                     std::vector<Setting>{Setting::single_copy});
  return r;
}

std::optional<std::string> replica_loss_warning(const ClusterView& a, const ClusterView& b, const PlanRequests& r) {
  const std::uint32_t ra = r.from.options().replicas, rb = r.to.options().replicas;
  if (rb >= ra) return std::nullopt;
  return fmt::format("warning: {} keeps {} replica(s) of each key where {} keeps {}: the plan retires the others",
                     b.source(), rb, a.source(), ra);
}

}  // namespace hrw
