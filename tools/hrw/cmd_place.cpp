// PLACEHOLDER: replaced by the issue that builds `hrw place`.
#include <stdexcept>

#include "hrw/commands.hpp"

namespace hrw::cli {

Runner add_place(CLI::App& app) {
  app.add_subcommand("place", "(not built yet)");
  return [] () -> int { throw std::runtime_error("hrw place is not built yet"); };
}

}  // namespace hrw::cli
