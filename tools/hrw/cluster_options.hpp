// The options that name a cluster view on the command line, shared by every command that
// takes one: --cluster FILE or --nodes IDS, with --seed/--hash/--weights overriding.
#pragma once
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "hrw/cluster_view.hpp"
#include "hrw/placement.hpp"

namespace hrw::cli {

struct ClusterOptions {
  std::string cluster_file;
  std::string node_list;
  std::optional<std::string> seed;
  std::optional<std::string> hash;
  std::optional<std::string> weights;
  std::optional<std::string> hierarchy;

  // Reads, applies overrides, validates once. Throws InputError on any bad input.
  ClusterView load() const;
};

void add_cluster_options(CLI::App& sub, ClusterOptions& options);

// Contract §8 for one view: the request its rule and the flags give (a contradicting flag
// is refused), validated. Warnings are not printed here: see warn_distinct.
ValidRequest request_for(const ClusterView& view, const PlaceOptions& flags, GivenSettings given);
// The §8 warning line, when some but not all nodes lack the distinct label.
void warn_distinct(const ClusterView& view, const PlaceOptions& options);

}  // namespace hrw::cli
