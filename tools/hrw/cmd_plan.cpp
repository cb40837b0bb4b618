// PLACEHOLDER: replaced by the issue that builds `hrw plan`.
#include <stdexcept>

#include "hrw/commands.hpp"

namespace hrw::cli {

Runner add_plan(CLI::App& app) {
  app.add_subcommand("plan", "(not built yet)");
  return [] () -> int { throw std::runtime_error("hrw plan is not built yet"); };
}

}  // namespace hrw::cli
