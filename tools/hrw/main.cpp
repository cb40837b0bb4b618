// hrw: rendezvous placement from the command line.
// Exit codes: 0 success, 2 bad input (one line on stderr naming the problem), 1 internal
// failure. Every command's errors pass through here so the policy lives in one place.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/heap.hpp"
#include "hrw/numbers.hpp"
#include "hrw/process.hpp"
#include "hrw/targets.hpp"
#include "hrw/version.hpp"

namespace {

// The flag that sets each library setting, for messages that name what the user typed.
std::string_view flag_for(hrw::Setting setting) {
  switch (setting) {
    case hrw::Setting::replica_count: return "--replicas";
    case hrw::Setting::distinct_label: return "--distinct";
    case hrw::Setting::node_list: return "--nodes";
    case hrw::Setting::weight_list: return "--weights";
    case hrw::Setting::key_format: return "--keys-format";
    case hrw::Setting::keys_file: return "--keys";
    case hrw::Setting::virtual_nodes: return "--vnodes";
    case hrw::Setting::maglev_size: return "--maglev-size";
    case hrw::Setting::load_factor: return "--load-factor";
    case hrw::Setting::hierarchy_list: return "--hierarchy";
    case hrw::Setting::partial_results: return "--partial";
    case hrw::Setting::batch_size: return "--batch-size";
    case hrw::Setting::max_moves_per_node: return "--max-moves-per-node";
    case hrw::Setting::max_bytes_per_node: return "--max-bytes-per-node";
    case hrw::Setting::node_bandwidth: return "--node-bandwidth";
    case hrw::Setting::max_moved_fraction: return "--max-moved-fraction";
    case hrw::Setting::cap_by: return "--cap-by";
    case hrw::Setting::step_versions: return "--step-versions";
    case hrw::Setting::chart_file: return "--svg";
    case hrw::Setting::placement_file: return "--from-placement";
    case hrw::Setting::thread_count: return "--threads";
    case hrw::Setting::ignored_columns: return "--ignore-columns";
    case hrw::Setting::single_copy: return "--allow-single-copy";
    case hrw::Setting::none: break;
  }
  return {};
}

std::string cli_message(const hrw::InputError& e) {
  if (e.setting() == hrw::Setting::none && e.mentioned().empty()) return e.what();
  // The library's hint names the concept; the CLI names the flag that asks for it.
  const std::string_view hint =
      e.hint() == hrw::Hint::accept_partial ? " (use --partial to accept fewer)" : "";
  return e.worded(flag_for) + std::string(hint);
}

// "hrw --list-options" (hidden, for the tests that walk every option): one line per option of
// every command, hidden ones included, from CLI11's own registry: COMMAND OPTION TYPE, where
// TYPE is UINT or REAL for the numeric options of numbers.hpp, FLAG for a flag, else TEXT.
void print_options(CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({}))
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt == sub->get_help_ptr()) continue;
      const std::string type = opt->get_type_name();
      // get_name() is empty for hidden options: their long name is the one they are given by.
      const auto& longs = opt->get_lnames();
      fmt::print("{} {} {}\n", sub->get_name(), longs.empty() ? opt->get_name(true) : "--" + longs.front(),
                 opt->get_expected_min() == 0 ? "FLAG"
                 : type == hrw::cli::kUnsignedType || type == hrw::cli::kRealType ? type
                                                                                  : "TEXT");
    }
}

// "hrw --version": the version, then the SIMD targets this binary can use here.
std::string version_text() {
  std::string targets;
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) targets += " " + t.name;
  return fmt::format("hrw {}\nplacement contract v{}\nSIMD targets runnable here (best first):{}", HRW_VERSION,
                     HRW_CONTRACT_VERSION, targets);
}

// --target NAME, else $HRW_TARGET (read by the library): forced before the command runs, so
// a bad value is reported before any work.
void force_requested_target(const std::string& flag_value, bool from_flag) {
  if (!from_flag) {
    hrw::apply_target_environment();  // its messages start "HRW_TARGET: "
    return;
  }
  try {
    hrw::force_target(std::string_view(flag_value));
  } catch (const hrw::InputError& e) {
    throw hrw::InputError(fmt::format("--target: {}", e.what()));
  }
}

// stdout is buffered: a full disk or a closed pipe often shows only when it is flushed.
int finish_stdout(int code) {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  hrw::cli::eprint("hrw: stdout: write failed: {}\n", std::strerror(errno));
  return 1;
}

// An option given an empty value ("--out \"$OUT\"" with OUT unset) is refused, naming it,
// rather than taken as "not given" (no output, no failure domain): docs/errors.md, "Empty
// values". The empty string is a value only where the contract makes it one: a seed, a key.
void refuse_empty_values(const CLI::App& sub) {
  for (const CLI::Option* option : sub.get_options()) {
    if (option->count() == 0 || option->get_expected_min() == 0) continue;  // not given, or a flag
    const auto& longs = option->get_lnames();
    const std::string name = longs.empty() ? option->get_name() : "--" + longs.front();
    if (name == "--seed" || name == "key") continue;
    for (const std::string& value : option->results())
      if (value.empty())
        throw hrw::InputError(fmt::format("{}: an empty value (a variable left unset?): give one, or leave {} out",
                                          name, name));
  }
}

int run_command(const CLI::App& sub, hrw::cli::Runner& run, const std::string& target, bool target_from_flag) {
  try {
    refuse_empty_values(sub);
    force_requested_target(target, target_from_flag);
    const int code = finish_stdout(run());
    if (const int sig = hrw::cli::deferred_signal()) return 128 + sig;
    return code;
  } catch (const hrw::InputError& e) {
    hrw::cli::eprint("hrw: {}\n", hrw::cli::one_line(cli_message(e)));
    return 2;
  } catch (const hrw::WriteError& e) {
    hrw::cli::eprint("hrw: {}\n", hrw::cli::one_line(e.what()));
    return 1;
  } catch (const std::exception& e) {
    if (std::ferror(stdout)) {
      const auto* sys = dynamic_cast<const std::system_error*>(&e);
      hrw::cli::eprint("hrw: stdout: write failed: {}\n",
                       sys ? sys->code().message() : std::string(std::strerror(errno)));
    } else {
      hrw::cli::eprint("hrw: internal error: {}\n", hrw::cli::one_line(e.what()));
    }
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  hrw::cli::use_huge_page_heap();
  hrw::cli::install_signal_cleanup();
  CLI::App app{"hrw: rendezvous (highest-random-weight) placement engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "Print the version and the SIMD targets");
  // Any command, before or after its name: hrw --target AVX2 place ..., hrw place ... --target AVX2.
  std::string target;
  app.add_option("--target", target,
                 "Force a SIMD target (AVX3, AVX2, SSE4, NEON, SVE2, ...; auto: detect). "
                 "Default: $HRW_TARGET, else the best this CPU runs");
  app.fallthrough();
  std::vector<std::pair<CLI::App*, hrw::cli::Runner>> commands;
  auto add = [&](hrw::cli::Runner (*adder)(CLI::App&)) {
    hrw::cli::Runner run = adder(app);
    commands.emplace_back(app.get_subcommands({}).back(), std::move(run));
  };
  add(hrw::cli::add_select);
  add(hrw::cli::add_place);
  add(hrw::cli::add_plan);
  add(hrw::cli::add_compare);
  add(hrw::cli::add_verify);
  add(hrw::cli::add_sample);
  add(hrw::cli::add_check);
  add(hrw::cli::add_view);
  add(hrw::cli::add_balance);
  add(hrw::cli::add_bench);

  if (argc == 2 && std::string_view(argv[1]) == "--list-options") {
    print_options(app);
    return finish_stdout(0);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    hrw::cli::eprint("hrw: {}\n", hrw::cli::one_line(e.what()));
    return 2;
  }
  for (auto& [sub, run] : commands)
    if (sub->parsed()) return run_command(*sub, run, target, app.count("--target") > 0);
  return 2;
}
