// kernels::key_states: FNV-1a of seed ‖ key for a batch of keys, keys in lanes
// (key_hash-inl.h). One Highway source for every target, picked at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "key_states.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "dispatch.hpp"
#include "kernel_api.hpp"
#include "key_hash-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

void KeyStatesImpl(uint32_t seed_state, const char* data, const uint64_t* off, size_t data_size,
                   size_t lo, size_t hi, uint32_t* out) {
  HashKeyPrefixes(seed_state, data, off, data_size, lo, hi, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw::kernels {

HRW_EXPORT(KeyStatesImpl);

void key_states(std::uint32_t seed_state, const char* data, const std::uint64_t* off,
                std::size_t data_size, std::size_t lo, std::size_t hi, std::uint32_t* out) {
  HRW_DYNAMIC_DISPATCH(KeyStatesImpl)(seed_state, data, off, data_size, lo, hi, out);
}

}  // namespace hrw::kernels
#endif  // HWY_ONCE
