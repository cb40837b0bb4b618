// PLACEHOLDER: replaced by the issue that builds `hrw verify`.
#include <stdexcept>

#include "hrw/commands.hpp"

namespace hrw::cli {

Runner add_verify(CLI::App& app) {
  app.add_subcommand("verify", "(not built yet)");
  return [] () -> int { throw std::runtime_error("hrw verify is not built yet"); };
}

}  // namespace hrw::cli
