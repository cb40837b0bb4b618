// hrw select: the audit command. One key, every node's rank and score, the owner marked.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output.hpp"
#include "hrw/process.hpp"
#include "hrw/select.hpp"

namespace hrw::cli {
namespace {

struct SelectArgs {
  std::string key;
  ClusterOptions cluster;
  std::uint32_t replicas = 0;  // 0: not asked for
  std::optional<std::string> distinct;
  bool partial = false;
  std::string format = "table";
};

}  // namespace

Runner add_select(CLI::App& app) {
  auto args = std::make_shared<SelectArgs>();
  CLI::App* sub = app.add_subcommand("select", "Rank every node for one key (audit)");
  sub->add_option("key", args->key, "The key (bytes as given; may be empty)")->required();
  add_cluster_options(*sub, args->cluster);
  add_unsigned(*sub, "--replicas", args->replicas, Setting::replica_count, "Replica count R, at most the node count");
  sub->add_option("--distinct", args->distinct, "Replicas must differ in this label (failure domain)");
  sub->add_flag("--partial", args->partial, "Accept fewer replicas than R when domains run out");
  sub->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  return [args, sub]() -> int {
    const ClusterView view = args->cluster.load();
    const Selection selection =
        select_key(view, args->key, {args->replicas, args->distinct, args->partial});
    if (selection.warning) eprint("hrw: warning: {}\n", *selection.warning);
    if (args->format == "json") {
      fmt::print("{}\n", selection_json(view, selection));
      return 0;
    }
    fmt::print("{}", selection_table(view, selection));
    return 0;
  };
}

}  // namespace hrw::cli
