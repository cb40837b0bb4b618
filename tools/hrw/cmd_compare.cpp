// PLACEHOLDER: replaced by the issue that builds `hrw compare`.
#include <stdexcept>

#include "hrw/commands.hpp"

namespace hrw::cli {

Runner add_compare(CLI::App& app) {
  app.add_subcommand("compare", "(not built yet)");
  return [] () -> int { throw std::runtime_error("hrw compare is not built yet"); };
}

}  // namespace hrw::cli
