// hrw view show|edit: look at a cluster view, or change one without editing JSON
// (docs/plan.md, "Changing a view"). The computation and the report are the library's
// (view_tools.hpp); this file parses the edit options (their syntax errors name the flag)
// and publishes the result atomically with the one view serialiser.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bulk_options.hpp"
#include "cluster_options.hpp"
#include "hrw/atomic_file.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/process.hpp"
#include "hrw/view_json.hpp"
#include "hrw/view_tools.hpp"

namespace hrw::cli {

namespace {

struct ViewArgs {
  BulkOptions keys;  // show --keys: what each node holds
  std::string action, file, format = "table", out;
  std::vector<std::string> remove;
  std::optional<std::uint64_t> version;
  ViewEdit edit;
};

// --add ID[:LABEL=V,...]: the first ':' ends the id.
NodeSpec parse_addition(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return CLI::ValidationError("--add", fmt::format("{} in {} (the form is ID[:LABEL=VALUE,...])", why,
                                                     quote_for_message(text)));
  };
  NodeSpec node;
  const std::size_t colon = text.find(':');
  node.id = text.substr(0, colon);
  if (node.id.empty()) throw bad("an empty node id");
  if (colon == std::string::npos) return node;
  const std::string labels = text.substr(colon + 1);
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = labels.find(',', at);
    const std::string item = labels.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw bad(fmt::format("label {} has no '='", quote_for_message(item)));
    const std::string name = item.substr(0, eq);
    if (name.empty()) throw bad("an empty label name");
    for (const auto& [n, v] : node.labels)
      if (n == name) throw bad(fmt::format("label {} is given twice", quote_for_message(name)));
    node.labels.emplace_back(name, item.substr(eq + 1));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return node;
}

// --weight ID=W: the last '=' ends the id; W by the strict number parser.
std::pair<std::string, double> parse_weight(const std::string& text) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    throw CLI::ValidationError("--weight", fmt::format("must be ID=WEIGHT, got {}", quote_for_message(text)));
  return {text.substr(0, eq), parse_real("--weight", text.substr(eq + 1), {0, kMaxWeight, true})};
}

}  // namespace

Runner add_view(CLI::App& app) {
  auto a = std::make_shared<ViewArgs>();
  CLI::App* sub = app.add_subcommand(
      "view", "Show a cluster view (hrw view show A.json) or write an edited copy (hrw view edit A.json ... --out B.json)");
  sub->add_option("action", a->action, "show or edit")->required()->check(CLI::IsMember({"show", "edit"}));
  sub->add_option("file", a->file, "The cluster view (JSON)")->required();
  auto* format = sub->add_option("--format", a->format, "show: table (default) or json")
                     ->check(CLI::IsMember({"table", "json"}));
  // Repeatable, one value per occurrence; parsed while the command line is (a bad value is
  // exit 2 naming the flag before anything is read).
  auto* add = sub->add_option_function<std::vector<std::string>>(
                     "--add",
                     [a](const std::vector<std::string>& all) {
                       for (const std::string& t : all) a->edit.add.push_back(parse_addition(t));
                     },
                     "edit: add node ID with labels (ID[:LABEL=VALUE,...]); repeatable")
                  ->allow_extra_args(false);
  auto* remove = sub->add_option("--remove", a->remove, "edit: remove node ID; repeatable")->allow_extra_args(false);
  auto* weight = sub->add_option_function<std::vector<std::string>>(
                        "--weight",
                        [a](const std::vector<std::string>& all) {
                          for (const std::string& t : all) a->edit.weights.push_back(parse_weight(t));
                        },
                        "edit: set node ID's weight (ID=WEIGHT, WEIGHT > 0); repeatable")
                     ->allow_extra_args(false);
  auto* version = add_unsigned(*sub, "--version", a->version, 0, static_cast<std::uint64_t>(INT64_MAX),
                               "edit: the new view's version (default: the view's + 1)");
  auto* out = sub->add_option("--out", a->out, "edit: the edited view's file (never one of the inputs)");
  // show --keys FILE [--replicas R ...]: each node's keys and bytes held (docs/plan.md,
  // "Changing a view"), placed as hrw place places them.
  add_bulk_options(*sub, a->keys);
  sub->get_option("--keys")->required(false)->description(
      "show: also each node's keys (and bytes) held when these keys are placed in the view: its fill");
  const std::vector<std::string> placing = {"--keys",  "--keys-format", "--replicas",       "--distinct", "--partial",
                                            "--quiet", "--threads",     "--ignore-columns", "--chunk-size"};
  return [a, sub, format, add, remove, weight, version, out, placing]() -> int {
    if (a->action == "show") {
      for (CLI::Option* o : {add, remove, weight, version, out})
        if (o->count()) throw InputError(fmt::format("{} goes with hrw view edit", o->get_name()));
      for (const std::string& name : placing)
        if (name != "--keys" && sub->count(name) && !sub->count("--keys"))
          throw InputError(fmt::format("{} goes with --keys", name));
      if (sub->count("--keys")) check_outputs({}, {{"view", a->file}, {"--keys", a->keys.keys}});
      const ClusterView view(load_cluster_file(a->file));
      ViewFill fill;
      std::optional<PlaceStats> stats;
      if (sub->count("--keys")) {
        PlaceJob job;
        job.keys = a->keys.key_input();
        job.out.clear();  // the stats alone
        bool has_requests = false;
        stats.emplace(run_place(request_for(view, a->keys.place_options(), BulkOptions::given(*sub)), job,
                                fill.has_bytes, has_requests));
        fill.stats = &*stats;
      }
      fmt::print("{}", a->format == "json" ? view_show_json(view, fill) : view_show_table(view, fill));
      return 0;
    }
    for (const std::string& name : placing)
      if (sub->count(name)) throw InputError(fmt::format("{} goes with hrw view show", name));
    if (format->count()) throw InputError("--format goes with hrw view show");
    if (a->out.empty()) throw InputError("view edit: give --out FILE for the edited view");
    check_outputs({{"--out", a->out}}, {{"view", a->file}});
    const ClusterView view(load_cluster_file(a->file));
    a->edit.remove = a->remove;
    if (a->version) a->edit.version = static_cast<std::int64_t>(*a->version);
    const ClusterSpec edited = edit_view(view, a->edit, a->out);
    AtomicFile file(a->out);
    file.write(view_json(edited));
    file.commit();
    return 0;
  };
}

}  // namespace hrw::cli
