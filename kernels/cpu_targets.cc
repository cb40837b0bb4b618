// Which Highway targets this CPU runs, detected as Highway 1.0.3's hwy::SupportedTargets()
// detects them (hwy/targets.cc of that release: the same feature groups, the same OS
// checks), so that the kernels can dispatch without libhwy.so (kernels/dispatch.hpp).
// tests/engine/targets.cpp checks the two agree on every machine and qemu CPU the suite runs
// on; a target wrongly reported here would run instructions the CPU lacks.
#include <cstdint>

#include "hwy/detect_targets.h"
#include "target_switch.hpp"

#if HWY_ARCH_X86
#include <cpuid.h>
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace hrw::kernels {

namespace {

#if HWY_ARCH_X86

bool bit(std::uint32_t reg, int index) { return (reg >> index) & 1u; }

// The CPU's features a target needs, as Highway groups them.
constexpr std::uint64_t
  kSSE = 1ull << 0, kSSE2 = 1ull << 1, kSSE3 = 1ull << 2, kSSSE3 = 1ull << 3,
  kSSE41 = 1ull << 4, kSSE42 = 1ull << 5, kCLMUL = 1ull << 6, kAES = 1ull << 7,
  kAVX = 1ull << 8, kAVX2 = 1ull << 9, kF16C = 1ull << 10, kFMA = 1ull << 11,
  kLZCNT = 1ull << 12, kBMI = 1ull << 13, kBMI2 = 1ull << 14,
  kAVX512F = 1ull << 15, kAVX512VL = 1ull << 16, kAVX512DQ = 1ull << 17, kAVX512BW = 1ull << 18,
  kVNNI = 1ull << 19, kVPCLMULQDQ = 1ull << 20, kVBMI = 1ull << 21, kVBMI2 = 1ull << 22,
  kVAES = 1ull << 23, kPOPCNTDQ = 1ull << 24, kBITALG = 1ull << 25;
constexpr std::uint64_t kGroupSSSE3 = kSSE | kSSE2 | kSSE3 | kSSSE3;
constexpr std::uint64_t kGroupSSE4 = kSSE41 | kSSE42 | kCLMUL | kAES | kGroupSSSE3;
constexpr std::uint64_t kGroupAVX2 = kAVX | kAVX2 | kLZCNT | kBMI | kBMI2 | kFMA | kF16C | kGroupSSE4;
constexpr std::uint64_t kGroupAVX3 = kAVX512F | kAVX512VL | kAVX512DQ | kAVX512BW | kGroupAVX2;
constexpr std::uint64_t kGroupAVX3_DL =
    kVNNI | kVPCLMULQDQ | kVBMI | kVBMI2 | kVAES | kPOPCNTDQ | kBITALG | kGroupAVX3;

// XCR0: the register state the OS saves on a context switch (xgetbv needs no -mxsave).
std::uint32_t os_saved_state() {
  std::uint32_t lo = 0, hi = 0;
  asm volatile(".byte 0x0F, 0x01, 0xD0" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo;
}

// Where cpuid reports each feature: leaf (subleaf 0), register, bit.
enum class Reg { ebx, ecx, edx };
struct FeatureBit {
  std::uint32_t leaf;
  Reg reg;
  int bit;
  std::uint64_t feature;
};
constexpr FeatureBit kFeatureBits[] = {
    {1, Reg::edx, 25, kSSE},       {1, Reg::edx, 26, kSSE2},      {1, Reg::ecx, 0, kSSE3},
    {1, Reg::ecx, 1, kCLMUL},      {1, Reg::ecx, 9, kSSSE3},      {1, Reg::ecx, 12, kFMA},
    {1, Reg::ecx, 19, kSSE41},     {1, Reg::ecx, 20, kSSE42},     {1, Reg::ecx, 25, kAES},
    {1, Reg::ecx, 28, kAVX},       {1, Reg::ecx, 29, kF16C},      {0x80000001u, Reg::ecx, 5, kLZCNT},
    {7, Reg::ebx, 3, kBMI},        {7, Reg::ebx, 5, kAVX2},       {7, Reg::ebx, 8, kBMI2},
    {7, Reg::ebx, 16, kAVX512F},   {7, Reg::ebx, 17, kAVX512DQ},  {7, Reg::ebx, 30, kAVX512BW},
    {7, Reg::ebx, 31, kAVX512VL},  {7, Reg::ecx, 1, kVBMI},       {7, Reg::ecx, 6, kVBMI2},
    {7, Reg::ecx, 9, kVAES},       {7, Reg::ecx, 10, kVPCLMULQDQ}, {7, Reg::ecx, 11, kVNNI},
    {7, Reg::ecx, 12, kBITALG},    {7, Reg::ecx, 14, kPOPCNTDQ},
};

// One cpuid leaf's ebx, ecx, edx; zeros for a standard leaf above the CPU's highest.
struct Leaf {
  std::uint32_t ebx = 0, ecx = 0, edx = 0;
  std::uint32_t get(Reg r) const { return r == Reg::ebx ? ebx : r == Reg::ecx ? ecx : edx; }
};
Leaf read_leaf(std::uint32_t leaf, std::uint32_t max_standard_leaf) {
  Leaf out;
  std::uint32_t eax = 0;
  if (leaf < 0x80000000u && leaf > max_standard_leaf) return out;
  __cpuid_count(leaf, 0, eax, out.ebx, out.ecx, out.edx);
  return out;
}

std::int64_t detect_x86() {
  std::int64_t targets = HWY_SCALAR | HWY_EMU128;
  std::uint32_t max_level = 0, unused = 0;
  __cpuid_count(0, 0, max_level, unused, unused, unused);
  const Leaf leaf1 = read_leaf(1, max_level), leaf7 = read_leaf(7, max_level),
             extended = read_leaf(0x80000001u, max_level);
  std::uint64_t f = 0;
  for (const FeatureBit& fb : kFeatureBits) {
    const Leaf& leaf = fb.leaf == 1 ? leaf1 : fb.leaf == 7 ? leaf7 : extended;
    if (bit(leaf.get(fb.reg), fb.bit)) f |= fb.feature;
  }
  const bool os_xsave = bit(leaf1.ecx, 27);
  const auto has = [f](std::uint64_t group) { return (f & group) == group; };
  if (has(kGroupAVX3_DL)) targets |= HWY_AVX3_DL;
  if (has(kGroupAVX3)) targets |= HWY_AVX3;
  if (has(kGroupAVX2)) targets |= HWY_AVX2;
  if (has(kGroupSSE4)) targets |= HWY_SSE4;
  if (has(kGroupSSSE3)) targets |= HWY_SSSE3;
  // Without OS support for a register file its instructions work but its state is lost
  // on a context switch. (As in Highway: no check when the OS does not report XSAVE.)
  if (os_xsave) {
    const std::uint32_t xcr0 = os_saved_state();
    const std::int64_t avx3 = HWY_AVX3 | HWY_AVX3_DL;
    const std::int64_t avx2 = HWY_AVX2 | avx3;
    if (!bit(xcr0, 1)) targets &= ~(HWY_SSSE3 | HWY_SSE4 | avx2);  // XMM
    if (!bit(xcr0, 2)) targets &= ~avx2;                           // YMM
    if (!bit(xcr0, 5) || !bit(xcr0, 6) || !bit(xcr0, 7)) targets &= ~avx3;  // opmask, ZMM
  }
  return targets;
}

#elif HWY_ARCH_ARM_A64 && defined(__linux__)

std::int64_t detect_arm64() {
  std::int64_t targets = HWY_SCALAR | HWY_EMU128;
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  if (hw & HWCAP_AES) targets |= HWY_NEON;  // aarch64 always has NEON; Highway wants AES
  if (hw & HWCAP_SVE) targets |= HWY_SVE;
  if ((hw2 & HWCAP2_SVE2) && (hw2 & HWCAP2_SVEAES)) targets |= HWY_SVE2;
  // The fixed-width SVE targets run when the thread's vector length is theirs (Highway reads
  // it with an SVE instruction; the kernel reports the same length without one).
  long vector_bytes = 0;
  if (targets & (HWY_SVE | HWY_SVE2)) {
    const int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
    if (vl > 0) vector_bytes = vl & PR_SVE_VL_LEN_MASK;
  }
  if ((targets & HWY_SVE) && vector_bytes == 32) targets |= HWY_SVE_256;
  if ((targets & HWY_SVE2) && vector_bytes == 16) targets |= HWY_SVE2_128;
  return targets;
}

#endif

}  // namespace

std::int64_t detect_cpu_targets() {
#if HWY_ARCH_X86
  return detect_x86();
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
  return detect_arm64();
#else
  // Elsewhere Highway 1.0.3 does not detect either: the compiled-in baseline.
  return HWY_SCALAR | HWY_EMU128 | HWY_ENABLED_BASELINE;
#endif
}

}  // namespace hrw::kernels
