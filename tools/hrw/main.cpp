// hrw: rendezvous placement from the command line.
// Exit codes: 0 success, 2 bad input (one line on stderr naming the problem), 1 internal
// failure. Every command's errors pass through here so the policy lives in one place.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "hrw/errors.hpp"
#include "hrw/commands.hpp"
#include "hrw/process.hpp"

namespace {

// stdout is buffered: a full disk or a closed pipe often shows only when it is flushed.
int finish_stdout(int code) {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  hrw::cli::eprint("hrw: stdout: write failed: {}\n", std::strerror(errno));
  return 1;
}

int run_command(hrw::cli::Runner& run) {
  try {
    const int code = finish_stdout(run());
    if (const int sig = hrw::cli::deferred_signal()) return 128 + sig;
    return code;
  } catch (const hrw::InputError& e) {
    hrw::cli::eprint("hrw: {}\n", hrw::cli::one_line(e.what()));
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
  hrw::cli::install_signal_cleanup();
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
    if (sub->parsed()) return run_command(run);
  return 2;
}
