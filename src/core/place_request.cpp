// The one validation of a placement request (contract §3): every engine, command and
// binding calls it before placing, and the reference then computes without re-checking.
#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"

namespace hrw {

void validate_request(const ClusterView& view, const PlaceOptions& options) {
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
  if (options.distinct_label.empty() || options.allow_partial) return;
  const std::uint32_t domains = view.domain_count(options.distinct_label);
  if (domains < r) throw reference::too_few_domains(view, r, options.distinct_label, domains);
}

}  // namespace hrw
