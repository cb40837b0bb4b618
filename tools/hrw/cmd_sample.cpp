// PLACEHOLDER: replaced by the issue that builds `hrw sample`.
#include <stdexcept>

#include "hrw/commands.hpp"

namespace hrw::cli {

Runner add_sample(CLI::App& app) {
  app.add_subcommand("sample", "(not built yet)");
  return [] () -> int { throw std::runtime_error("hrw sample is not built yet"); };
}

}  // namespace hrw::cli
