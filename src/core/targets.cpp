// The targets API of include/hrw/targets.hpp, all of it: the forced target is held here (an
// atomic), HRW_TARGET is read here, names are resolved here. The kernel layer only reports
// its masks and switches Highway's dispatch table (kernels/targets.cc, kernels/kernel_api.hpp).
#include "hrw/targets.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "kernel_api.hpp"
#include "target_switch.hpp"

namespace hrw {

namespace {

std::atomic<std::int64_t> g_forced_bits{0};
// Set by the first force_target call: an explicit choice wins over HRW_TARGET.
std::atomic<bool> g_forced_explicitly{false};
std::once_flag g_environment_once;
// force_target's two steps (record, switch the dispatch table) happen together.
std::mutex g_switch;

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::vector<SimdTarget> targets_of(std::int64_t mask) {
  std::vector<SimdTarget> out;
  // Highway numbers better targets with lower bits: ascending bits = best first.
  for (std::int64_t m = mask; m != 0; m &= m - 1) {
    const std::int64_t bit = m & -m;
    out.push_back(SimdTarget{bit, kernels::target_name(bit)});
  }
  return out;
}

std::string names(const std::vector<SimdTarget>& targets) {
  std::string out;
  for (const SimdTarget& t : targets) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

std::int64_t runnable_mask() {
  return kernels::detected_target_mask() & kernels::compiled_target_mask();
}

void switch_to(std::int64_t bits) {
  if (bits != 0 && (bits & (bits - 1)) == 0 && (runnable_mask() & bits) != 0) {
    const std::lock_guard<std::mutex> lock(g_switch);
    g_forced_bits.store(bits);
    kernels::dispatch_to(bits);
    return;
  }
  if (bits != 0)
    throw std::invalid_argument("force_target: target " + std::to_string(bits) +
                                " is not compiled in or not supported by this CPU");
  const std::lock_guard<std::mutex> lock(g_switch);
  g_forced_bits.store(0);
  kernels::dispatch_to(kernels::detected_target_mask());
}

std::int64_t bits_named(std::string_view name) {
  if (name.empty() || same_name(name, "auto")) return 0;
  const std::vector<SimdTarget> runnable = runnable_targets();
  for (const SimdTarget& t : runnable)
    if (same_name(name, t.name)) return t.bits;
  for (const SimdTarget& t : compiled_targets())
    if (same_name(name, t.name))
      throw InputError(fmt::format("SIMD target {} is compiled in but this CPU cannot run it "
                                   "(runnable here: {})",
                                   t.name, names(runnable)));
  throw InputError(fmt::format("unknown SIMD target {} (compiled in: {}; or auto)",
                               quote_for_message(name), names(compiled_targets())));
}

}  // namespace

void apply_target_environment() {
  std::call_once(g_environment_once, [] {
    kernels::detected_target_mask();  // detect before anything is forced
    if (g_forced_explicitly.load()) return;
    const char* env = std::getenv(kTargetEnvironment);
    if (env == nullptr || *env == '\0') return;
    std::int64_t bits = 0;
    try {
      bits = bits_named(env);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", kTargetEnvironment, e.what()));
    }
    if (!g_forced_explicitly.load()) switch_to(bits);
  });
}

std::vector<SimdTarget> compiled_targets() { return targets_of(kernels::compiled_target_mask()); }

std::vector<SimdTarget> runnable_targets() { return targets_of(runnable_mask()); }

void force_target(std::int64_t bits) {
  g_forced_explicitly.store(true);
  switch_to(bits);
}

SimdTarget force_target(std::string_view name) {
  const std::int64_t bits = bits_named(name);
  force_target(bits);
  return active_target();
}

std::int64_t forced_target() {
  apply_target_environment();
  return g_forced_bits.load();
}

SimdTarget active_target() {
  apply_target_environment();
  const std::int64_t bit = kernels::dispatched_target();
  return SimdTarget{bit, kernels::target_name(bit)};
}

ScopedTarget::ScopedTarget(std::int64_t bits) : previous_(forced_target()) {
  force_target(bits);
}

ScopedTarget::ScopedTarget(std::string_view name) : previous_(forced_target()) {
  force_target(name);
}

ScopedTarget::~ScopedTarget() { force_target(previous_); }

}  // namespace hrw
