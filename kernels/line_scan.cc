// Where the lines are: one bit per input byte that is LF, for the lines reader
// (src/io/key_source.cpp). A vector compare per Lanes() bytes instead of a scalar test per
// byte: on the plan benchmark the byte scan was about half of the reader's time. One
// Highway source for every target, picked at run time like the placement kernels.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "line_scan.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstring>

#include "dispatch.hpp"
#include "kernel_api.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

void LfBitsImpl(const char* text, size_t n, uint64_t* bits) {
  const size_t words = (n + 63) / 64;
  auto* out = reinterpret_cast<uint8_t*>(bits);
  const auto* bytes = reinterpret_cast<const uint8_t*>(text);
  size_t i = 0;
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  // StoreMaskBits packs lane j into bit j % 8 of byte j / 8, whole bytes only: with
  // lanes % 8 == 0 every vector starts on a byte of `bits`, and in a little-endian word
  // byte k bit b is bit 8k + b, as wanted. (Highway's SCALAR target has one lane.)
  if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && lanes % 8 == 0) {
    const auto lf = hn::Set(d, uint8_t{'\n'});
    for (; i + lanes <= n; i += lanes)
      hn::StoreMaskBits(d, hn::Eq(hn::LoadU(d, bytes + i), lf), out + i / 8);
  }
  // The vectors wrote whole bytes up to bit i (a multiple of 8): clear the rest, then the
  // scalar tail sets its bits.
  std::memset(out + i / 8, 0, words * sizeof(uint64_t) - i / 8);
  for (; i < n; ++i) bits[i / 64] |= static_cast<uint64_t>(bytes[i] == '\n') << (i % 64);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw {
namespace kernels {

HRW_EXPORT(LfBitsImpl);

void lf_bits(const char* text, std::size_t n, std::uint64_t* bits) {
  HRW_DYNAMIC_DISPATCH(LfBitsImpl)(text, n, bits);
}

}  // namespace kernels
}  // namespace hrw
#endif  // HWY_ONCE
