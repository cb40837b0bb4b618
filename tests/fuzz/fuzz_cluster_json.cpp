// The cluster JSON reader: any bytes give a valid view or one InputError line, never a
// crash, a hang or another exception; an accepted view places keys and its shares add up.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/reference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const hrw::ClusterView view(hrw::parse_cluster_json(text, "fuzz.json"));
    double sum = 0;
    for (std::uint32_t i = 0; i < view.size(); ++i) sum += view.share(i);
    if (!(std::fabs(sum - 1.0) < 1e-9)) std::abort();
    if (hrw::reference::owner(view, text) >= view.size()) std::abort();
  } catch (const hrw::InputError& e) {
    const std::string_view message = e.what();
    if (message.find('\n') != std::string_view::npos || message.size() > 2000) std::abort();
  }
  return 0;
}
