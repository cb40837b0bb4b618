// Validation of the scheme parameters, with the messages `hrw compare` prints.
#include <cmath>

#include <fmt/format.h>

#include "compare/maglev_table.hpp"
#include "hrw/compare.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {

void validate(const Options& options, std::size_t max_nodes) {
  if (options.vnodes < 1)
    throw InputError(Setting::virtual_nodes, " must be at least 1, got 0");
  if (!is_prime(options.maglev_size))
    throw InputError(Setting::maglev_size,
                     fmt::format(" must be prime (Maglev's permutations need it), got {}",
                                 options.maglev_size));
  if (options.maglev_size > kMaxMaglevSize)  // 4 bytes a slot: keep the table under 400 MB
    throw InputError(Setting::maglev_size, fmt::format(" must be at most {}, got {}",
                                                       kMaxMaglevSize, options.maglev_size));
  if (options.maglev_size < max_nodes)
    throw InputError(Setting::maglev_size, fmt::format(" {} is smaller than the node count {}",
                                                       options.maglev_size, max_nodes));
  if (!(options.load_factor > 1) || !std::isfinite(options.load_factor))
    throw InputError(
        Setting::load_factor,
        fmt::format(" must be a finite number > 1 (the cap is c x the fair load), got {}",
                    options.load_factor));
}

}  // namespace hrw::compare
