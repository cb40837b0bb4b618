#include "compare/load_stats.hpp"

#include <algorithm>
#include <cmath>

namespace hrw::compare {

LoadStats load_stats(const std::vector<std::uint32_t>& owners, const NodeList& nodes) {
  std::vector<std::uint64_t> load(nodes.size(), 0);
  for (std::uint32_t o : owners) ++load[o];
  LoadStats stats;
  const double keys = static_cast<double>(owners.size());
  const std::vector<double> shares = nodes.shares();
  for (std::size_t i = 0; i < nodes.size(); ++i)
    stats.ratio.push_back(static_cast<double>(load[i]) / (keys * shares[i]));
  stats.peak_to_mean = *std::max_element(stats.ratio.begin(), stats.ratio.end());
  stats.min_to_mean = *std::min_element(stats.ratio.begin(), stats.ratio.end());
  double mean = 0, square = 0;
  for (double r : stats.ratio) mean += r;
  mean /= static_cast<double>(stats.ratio.size());
  for (double r : stats.ratio) square += (r - mean) * (r - mean);
  stats.load_cv = std::sqrt(square / static_cast<double>(stats.ratio.size()));
  return stats;
}

}  // namespace hrw::compare
