// Per-node load measured against each node's fair share of the keys.
#pragma once
#include <cstdint>
#include <vector>

#include "hrw/compare.hpp"

namespace hrw::compare {

// ratio_i = keys on node i / (keys x share_i); share_i = w_i / sum w (1/N unweighted), so a
// scheme that ignores weights shows how far it lands from what the weights ask for.
LoadStats load_stats(const std::vector<std::uint32_t>& owners, const NodeList& nodes);

}  // namespace hrw::compare
