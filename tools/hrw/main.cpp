// hrw: rendezvous placement from the command line.
// Exit codes: 0 success (hrw check: 3 when keys are misplaced), 2 bad input (one line on stderr naming the problem), 1 internal
// failure. Every command's errors pass through here so the policy lives in one place.
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "hrw/errors.hpp"
#include "hrw/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hrw: rendezvous (highest-random-weight) placement engine"};
  app.require_subcommand(1);
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "hrw: {}\n", e.what());
    return 2;
  }
  try {
    for (auto& [sub, run] : commands)
      if (sub->parsed()) return run();
    return 2;
  } catch (const hrw::InputError& e) {
    fmt::print(stderr, "hrw: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hrw: internal error: {}\n", e.what());
    return 1;
  }
}
