// Forcing a SIMD target by name, and the scoped form `hrw verify` and the tests use. The
// mask itself is read in the kernel layer (kernels/hrw_kernels.cc), where HWY_TARGETS is
// the one the kernels were compiled with.
#include "hrw/targets.hpp"

#include <cctype>
#include <string>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string names(const std::vector<SimdTarget>& targets) {
  std::string out;
  for (const SimdTarget& t : targets) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

}  // namespace

SimdTarget force_target(std::string_view name) {
  if (name.empty() || same_name(name, "auto")) {
    force_target(std::int64_t{0});
    return active_target();
  }
  const std::vector<SimdTarget> runnable = runnable_targets();
  for (const SimdTarget& t : runnable)
    if (same_name(name, t.name)) {
      force_target(t.bits);
      return active_target();
    }
  for (const SimdTarget& t : compiled_targets())
    if (same_name(name, t.name))
      throw InputError(fmt::format("SIMD target {} is compiled in but this CPU cannot run it "
                                   "(runnable here: {})",
                                   t.name, names(runnable)));
  throw InputError(fmt::format("unknown SIMD target {} (compiled in: {}; or auto)",
                               quote_for_message(name), names(compiled_targets())));
}

ScopedTarget::ScopedTarget(std::int64_t bits) : previous_(forced_target()) {
  force_target(bits);
}

ScopedTarget::ScopedTarget(std::string_view name) : previous_(forced_target()) {
  force_target(name);
}

ScopedTarget::~ScopedTarget() { force_target(previous_); }

}  // namespace hrw
