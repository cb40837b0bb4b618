// The SIMD batch engine: one Highway source compiled for every target (foreach_target.h)
// and picked at run time (HWY_DYNAMIC_DISPATCH). Keys are in lanes (one 32-bit FNV-1a
// state per lane); the node ids are the trie program of src/kernel_api.hpp, identical in
// every lane, so each byte step is a broadcast Xor and a Mul.
//
// Exactness: the unweighted score is the u32 r, compared as int32 after flipping the sign
// bit (Highway 1.0.3 has no unsigned Gt on every target). The weighted key ln(u)/w repeats
// hrw::det::unit_from_hash / det::ln (src/det_math.cpp) op for op with IEEE binary64
// Mul/Add/Sub/Div, exact bit manipulation and IfThenElse; never MulAdd, and the project
// builds with -ffp-contract=off so the compiler fuses nothing either.
//
// This file also implements include/hrw/targets.hpp: the compiled-target mask must be read
// in the translation unit that compiles the kernels.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "hrw_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"

#include <algorithm>
#include <cstring>

#include "hrw/det_math.hpp"
#include "kernel_api.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <class DU>
HWY_INLINE hn::Vec<DU> Fmix32(DU du, hn::Vec<DU> h) {
  h = hn::Xor(h, hn::ShiftRight<16>(h));
  h = h * hn::Set(du, 0x85EBCA6Bu);
  h = hn::Xor(h, hn::ShiftRight<13>(h));
  h = h * hn::Set(du, 0xC2B2AE35u);
  h = hn::Xor(h, hn::ShiftRight<16>(h));
  return h;
}

// det::ln, op for op (see src/det_math.cpp).
template <class D>
HWY_INLINE hn::Vec<D> DetLn(D d, hn::Vec<D> x) {
  const hn::RebindToUnsigned<D> du;
  const auto bits = hn::BitCast(du, x);
  const auto biased = hn::ShiftRight<52>(bits);
  auto e = hn::Sub(hn::Sub(hn::BitCast(d, hn::Or(hn::Set(du, det::kTwo52Bits), biased)),
                           hn::Set(d, det::kTwo52)),
                   hn::Set(d, 1023.0));
  auto m = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(du, 0x000FFFFFFFFFFFFFull)),
                                 hn::Set(du, 0x3FF0000000000000ull)));
  const auto big = hn::Gt(m, hn::Set(d, det::kSqrt2));
  m = hn::IfThenElse(big, hn::Mul(m, hn::Set(d, 0.5)), m);
  e = hn::IfThenElse(big, hn::Add(e, hn::Set(d, 1.0)), e);
  const auto f = hn::Sub(m, hn::Set(d, 1.0));
  const auto s = hn::Div(f, hn::Add(hn::Set(d, 2.0), f));
  const auto z = hn::Mul(s, s);
  auto poly = hn::Set(d, det::kLnPoly[0]);
  for (int k = 1; k < det::kLnTerms; ++k)
    poly = hn::Add(hn::Mul(poly, z), hn::Set(d, det::kLnPoly[k]));
  const auto ln_m = hn::Mul(hn::Mul(hn::Set(d, 2.0), s), poly);
  return hn::Add(hn::Mul(e, hn::Set(d, det::kLn2Hi)),
                 hn::Add(ln_m, hn::Mul(e, hn::Set(d, det::kLn2Lo))));
}

// Unweighted: hash lanes are u32 (full vector), scores are int32 with the sign bit flipped
// so that signed order = unsigned order of r; node indices are int32 too.
// A policy turns the FNV-1a state vector of a leaf into a score vector in two steps:
// Pre (cheap) and Key (the rank key). CannotBeat(pre, best) may prove, for all lanes at
// once, that the key will not be strictly greater than `best`, so that Key is skipped.
//
// Unweighted: hash lanes are u32 (full vector), scores are int32 with the sign bit flipped
// so that signed order = unsigned order of r; node indices are int32 too.
struct Unweighted {
  using DU = hn::ScalableTag<uint32_t>;
  using DS = hn::ScalableTag<int32_t>;
  using TS = int32_t;
  bool fmix;
  HWY_INLINE hn::Vec<DS> Pre(DU du, DS ds, hn::Vec<DU> h) const {
    if (fmix) h = Fmix32(du, h);
    return hn::BitCast(ds, hn::Xor(h, hn::Set(du, 0x80000000u)));
  }
  HWY_INLINE hn::Vec<DS> Key(DS, hn::Vec<DS> pre, const Op&) const { return pre; }
  HWY_INLINE bool CannotBeat(DS, hn::Vec<DS>, hn::Vec<DS>, const Op&) const { return false; }
  static HWY_INLINE double Rank(TS s) {
    return static_cast<double>(static_cast<uint32_t>(s) ^ 0x80000000u);
  }
};

// Weighted: hash lanes are u32 in a half-width vector with as many lanes as the f64
// vector; scores are the binary64 rank keys ln(u)/w; node indices are held as doubles
// (exact) so that one mask type selects both.
struct Weighted {
  using DS = hn::ScalableTag<double>;
  using DU = hn::Rebind<uint32_t, DS>;
  using TS = double;
  bool fmix;
  const double* weights;
  // u = det::unit_from_hash(r): bits 2^52 | (r + 1), minus 2^52, times 2^-32 (all exact).
  HWY_INLINE hn::Vec<DS> Pre(DU du, DS d, hn::Vec<DU> h) const {
    if (fmix) h = Fmix32(du, h);
    const hn::RebindToUnsigned<DS> du64;
    const auto bits =
        hn::Or(hn::Set(du64, det::kTwo52Bits), hn::Add(hn::PromoteTo(du64, h), hn::Set(du64, 1)));
    return hn::Mul(hn::Sub(hn::BitCast(d, bits), hn::Set(d, det::kTwo52)), hn::Set(d, 0x1p-32));
  }
  // det::weighted_key(r, w) = det::ln(u) / w.
  HWY_INLINE hn::Vec<DS> Key(DS d, hn::Vec<DS> u, const Op& op) const {
    const auto l = DetLn(d, u);
    const double w = weights[op.node];
    return w == 1.0 ? l : hn::Div(l, hn::Set(d, w));  // x / 1.0 == x exactly
  }
  // The gate that makes the weighted path cheap: most candidates cannot beat the best so
  // far, and proving it needs no logarithm. With x = u - 1 (exact: u has at most 32
  // significant bits), ln(u) <= x - x^2/2 for u in (0, 1], and det::ln's relative error
  // (< 2^-50) is far below x^2/2 for |x| >= 2^-32 (and det::ln(1) = 0), so det::ln(u) <= x.
  // Q = fl(fl(B*w) * (1 + 2^-50)) <= B*w in real arithmetic whenever B*w is normal, so
  // x < Q implies det::ln(u) < B*w, i.e. det::ln(u)/w < B, and the correctly rounded
  // quotient is then <= B (rounding is monotone): it cannot be strictly greater. If B*w
  // underflows, Q >= -2^-1021 and x < Q needs x <= -2^-32 < B*w anyway; if it overflows
  // to -inf, x < Q is false. Strict x < Q keeps u = 1 (key 0) from ever being skipped.
  HWY_INLINE bool CannotBeat(DS d, hn::Vec<DS> u, hn::Vec<DS> best, const Op& op) const {
    const auto x = hn::Sub(u, hn::Set(d, 1.0));
    const auto q = hn::Mul(hn::Mul(best, hn::Set(d, weights[op.node])),
                           hn::Set(d, 1.0 + 0x1p-50));
    return hn::AllTrue(d, hn::Lt(x, q));
  }
  static HWY_INLINE double Rank(TS s) { return s; }
};

constexpr uint32_t kPrime = 0x01000193u;

// Offers candidate (s, ci) to the sorted lists best/idx (kR slots of one vector each, in
// memory: SVE vectors cannot live in arrays). `fill`: slots >= fill are still empty and
// accept unconditionally. kLex: compare (score desc, index asc); otherwise strict Gt
// suffices because the candidate comes later in tie order than everything in the list.
template <size_t kR, bool kLex, class DS, class VS = hn::Vec<DS>>
HWY_INLINE void Insert(DS ds, hn::TFromD<DS>* HWY_RESTRICT best, hn::TFromD<DS>* HWY_RESTRICT idx,
                       VS s, VS ci, size_t fill) {
  const size_t L = hn::Lanes(ds);
  auto beats = [&](size_t j) {
    const VS b = hn::Load(ds, best + j * L);
    if (!kLex) return hn::Gt(s, b);
    const VS bi = hn::Load(ds, idx + j * L);
    return hn::Or(hn::Gt(s, b), hn::And(hn::Eq(s, b), hn::Lt(ci, bi)));
  };
  const auto all = hn::Eq(s, s);
  auto gt_j = (kR - 1 >= fill) ? all : beats(kR - 1);
  if (fill >= kR && hn::AllFalse(ds, gt_j)) return;
  for (size_t j = kR - 1; j >= 1; --j) {
    const auto gt_prev = (j - 1 >= fill) ? all : beats(j - 1);
    const VS bp = hn::Load(ds, best + (j - 1) * L);
    const VS ip = hn::Load(ds, idx + (j - 1) * L);
    const VS bj = hn::Load(ds, best + j * L);
    const VS ij = hn::Load(ds, idx + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, bp, s), bj), ds, best + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, ip, ci), ij), ds, idx + j * L);
    gt_j = gt_prev;
  }
  const VS b0 = hn::Load(ds, best);
  const VS i0 = hn::Load(ds, idx);
  hn::Store(hn::IfThenElse(gt_j, s, b0), ds, best);
  hn::Store(hn::IfThenElse(gt_j, ci, i0), ds, idx);
}

template <class P>
class Runner {
 public:
  using DU = typename P::DU;
  using DS = typename P::DS;
  using TS = typename P::TS;
  using VU = hn::Vec<DU>;
  using VS = hn::Vec<DS>;

  Runner(const KernelPlan& plan, const P& policy) : plan_(plan), p_(policy) {
    L_ = hn::Lanes(du_);
    stack_ = hwy::AllocateAligned<uint32_t>(std::max<size_t>(plan.program.slots, 1) * 2 * L_);
    pad_ = hwy::AllocateAligned<uint32_t>(2 * L_);
    out_s_ = hwy::AllocateAligned<TS>(kMaxKernelReplicas * L_);
    out_i_ = hwy::AllocateAligned<TS>(kMaxKernelReplicas * L_);
    if (plan.distinct) {
      dom_s_ = hwy::AllocateAligned<TS>(std::max<size_t>(plan.domain_count, 1) * L_);
      dom_i_ = hwy::AllocateAligned<TS>(std::max<size_t>(plan.domain_count, 1) * L_);
    }
  }

  void Run(const uint32_t* states, size_t n, uint32_t* nodes, double* rank, size_t stride) {
    const uint32_t sel = plan_.select;
    if (!plan_.distinct && sel == 1) return RunOwner(states, n, nodes, rank, stride);
    switch (sel) {
      case 1: return RunTop<1>(states, n, nodes, rank, stride);
      case 2: return RunTop<2>(states, n, nodes, rank, stride);
      case 3: return RunTop<3>(states, n, nodes, rank, stride);
      case 4: return RunTop<4>(states, n, nodes, rank, stride);
      default: return RunTop<kMaxKernelReplicas>(states, n, nodes, rank, stride);
    }
  }

 private:
  // The states of keys [base, base + count) padded to `lanes` lanes.
  const uint32_t* Group(const uint32_t* states, size_t base, size_t count, size_t lanes) {
    if (count == lanes) return states + base;
    std::memcpy(pad_.get(), states + base, count * sizeof(uint32_t));
    std::memset(pad_.get() + count, 0, (lanes - count) * sizeof(uint32_t));
    return pad_.get();
  }

  void Emit(size_t base, size_t count, size_t slots, uint32_t* nodes, double* rank,
            size_t stride) {
    for (size_t i = 0; i < count; ++i) {
      for (size_t j = 0; j < slots; ++j) {
        nodes[(base + i) * stride + j] = static_cast<uint32_t>(out_i_[j * L_ + i]);
        if (rank) rank[(base + i) * stride + j] = P::Rank(out_s_[j * L_ + i]);
      }
    }
  }

  // R = 1 without domains: the hot path. Two key vectors per pass to hide the latency of
  // the multiplies; the best score and node of each lane stay in registers.
  void RunOwner(const uint32_t* states, size_t n, uint32_t* nodes, double* rank,
                size_t stride) {
    const size_t L = L_, G = 2 * L;
    const Op* ops = plan_.program.ops.data();
    const size_t n_ops = plan_.program.ops.size();
    const uint8_t* bytes = plan_.program.bytes.data();
    uint32_t* stack = stack_.get();
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      const uint32_t* src = Group(states, base, count, G);
      hn::Store(hn::LoadU(du_, src), du_, stack);
      hn::Store(hn::LoadU(du_, src + L), du_, stack + L);
      VS best0 = hn::Zero(ds_), best1 = hn::Zero(ds_);
      VS idx0 = hn::Zero(ds_), idx1 = hn::Zero(ds_);
      for (size_t o = 0; o < n_ops; ++o) {
        const Op& op = ops[o];
        VU h0 = hn::Load(du_, stack + op.src * G);
        VU h1 = hn::Load(du_, stack + op.src * G + L);
        const uint8_t* b = bytes + op.offset;
        for (uint32_t t = 0; t < op.length; ++t) {
          const VU bv = hn::Set(du_, b[t]);
          const VU prime = hn::Set(du_, kPrime);
          h0 = hn::Xor(h0, bv) * prime;
          h1 = hn::Xor(h1, bv) * prime;
        }
        if (op.kind == kExtend) {
          hn::Store(h0, du_, stack + op.dst * G);
          hn::Store(h1, du_, stack + op.dst * G + L);
          continue;
        }
        const VS pre0 = p_.Pre(du_, ds_, h0);
        const VS pre1 = p_.Pre(du_, ds_, h1);
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        if (op.node == 0) {  // the first leaf fills the slot
          best0 = p_.Key(ds_, pre0, op);
          best1 = p_.Key(ds_, pre1, op);
          idx0 = ci;
          idx1 = ci;
          continue;
        }
        if (!p_.CannotBeat(ds_, pre0, best0, op)) {
          const VS s0 = p_.Key(ds_, pre0, op);
          const auto gt0 = hn::Gt(s0, best0);
          best0 = hn::IfThenElse(gt0, s0, best0);
          idx0 = hn::IfThenElse(gt0, ci, idx0);
        }
        if (!p_.CannotBeat(ds_, pre1, best1, op)) {
          const VS s1 = p_.Key(ds_, pre1, op);
          const auto gt1 = hn::Gt(s1, best1);
          best1 = hn::IfThenElse(gt1, s1, best1);
          idx1 = hn::IfThenElse(gt1, ci, idx1);
        }
      }
      for (size_t half = 0; half < 2; ++half) {
        const size_t c = std::min(L, count - std::min(count, half * L));
        if (c == 0) break;
        hn::Store(half ? best1 : best0, ds_, out_s_.get());
        hn::Store(half ? idx1 : idx0, ds_, out_i_.get());
        Emit(base + half * L, c, 1, nodes, rank, stride);
      }
    }
  }

  // Top-kR (kR >= select), with or without failure domains. One key vector per pass; the
  // kR sorted (score, node) slots of each lane live in L1.
  template <size_t kR>
  void RunTop(const uint32_t* states, size_t n, uint32_t* nodes, double* rank, size_t stride) {
    const size_t L = L_;
    const Op* ops = plan_.program.ops.data();
    const size_t n_ops = plan_.program.ops.size();
    const uint8_t* bytes = plan_.program.bytes.data();
    const bool distinct = plan_.distinct;
    const size_t domains = plan_.domain_count;
    uint32_t* stack = stack_.get();
    TS* best = out_s_.get();
    TS* idx = out_i_.get();
    TS* dom_s = dom_s_.get();
    TS* dom_i = dom_i_.get();
    const size_t emit_slots = plan_.select;
    for (size_t base = 0; base < n; base += L) {
      const size_t count = std::min(L, n - base);
      const uint32_t* src = Group(states, base, count, L);
      hn::Store(hn::LoadU(du_, src), du_, stack);
      for (size_t j = 0; j < kR; ++j) {
        hn::Store(hn::Set(ds_, hwy::LowestValue<TS>()), ds_, best + j * L);
        hn::Store(hn::Set(ds_, static_cast<TS>(-1)), ds_, idx + j * L);
      }
      for (size_t o = 0; o < n_ops; ++o) {
        const Op& op = ops[o];
        VU h = hn::Load(du_, stack + op.src * L);
        const uint8_t* b = bytes + op.offset;
        for (uint32_t t = 0; t < op.length; ++t)
          h = hn::Xor(h, hn::Set(du_, b[t])) * hn::Set(du_, kPrime);
        if (op.kind == kExtend) {
          hn::Store(h, du_, stack + op.dst * L);
          continue;
        }
        const VS pre = p_.Pre(du_, ds_, h);
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        if (!distinct) {
          if (op.node >= kR &&
              p_.CannotBeat(ds_, pre, hn::Load(ds_, best + (kR - 1) * L), op))
            continue;
          Insert<kR, false>(ds_, best, idx, p_.Key(ds_, pre, op), ci,
                            op.node < kR ? op.node : kR);
          continue;
        }
        TS* ps = dom_s + op.domain * L;
        TS* pi = dom_i + op.domain * L;
        if (op.first_in_domain) {
          hn::Store(p_.Key(ds_, pre, op), ds_, ps);
          hn::Store(ci, ds_, pi);
        } else {
          const VS bs = hn::Load(ds_, ps);
          if (p_.CannotBeat(ds_, pre, bs, op)) continue;
          const VS s = p_.Key(ds_, pre, op);
          const auto gt = hn::Gt(s, bs);  // strict: ties keep the earlier (smaller) id
          hn::Store(hn::IfThenElse(gt, s, bs), ds_, ps);
          hn::Store(hn::IfThenElse(gt, ci, hn::Load(ds_, pi)), ds_, pi);
        }
      }
      if (distinct) {
        // Walking the ranking and skipping taken domains accepts exactly each domain's
        // best node, in ranking order: the top-R of the representatives under
        // (score desc, node index asc).
        for (size_t d = 0; d < domains; ++d)
          Insert<kR, true>(ds_, best, idx, hn::Load(ds_, dom_s + d * L),
                           hn::Load(ds_, dom_i + d * L), d < kR ? d : kR);
      }
      Emit(base, count, emit_slots, nodes, rank, stride);
    }
  }

  const KernelPlan& plan_;
  P p_;
  DU du_;
  DS ds_;
  size_t L_ = 0;
  hwy::AlignedFreeUniquePtr<uint32_t[]> stack_, pad_;
  hwy::AlignedFreeUniquePtr<TS[]> out_s_, out_i_, dom_s_, dom_i_;
};

void RunBatchImpl(const KernelPlan& plan, const uint32_t* states, size_t n, uint32_t* nodes,
                  double* rank, size_t stride) {
  if (n == 0) return;
  if (plan.weighted) {
    Runner<Weighted> runner(plan, Weighted{plan.fmix, plan.weights.data()});
    runner.Run(states, n, nodes, rank, stride);
  } else {
    Runner<Unweighted> runner(plan, Unweighted{plan.fmix});
    runner.Run(states, n, nodes, rank, stride);
  }
}

int64_t TargetImpl() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "hrw/targets.hpp"

#include <stdexcept>

namespace hrw {
namespace kernels {

HWY_EXPORT(RunBatchImpl);
HWY_EXPORT(TargetImpl);

void run_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
               std::uint32_t* nodes, double* rank, std::size_t stride) {
  HWY_DYNAMIC_DISPATCH(RunBatchImpl)(plan, states, n, nodes, rank, stride);
}

std::int64_t dispatched_target() { return HWY_DYNAMIC_DISPATCH(TargetImpl)(); }

}  // namespace kernels

namespace {

std::vector<SimdTarget> targets_of(std::int64_t mask) {
  std::vector<SimdTarget> out;
  // Highway numbers better targets with lower bits: ascending bits = best first.
  for (std::int64_t m = mask; m != 0; m &= m - 1) {
    const std::int64_t bit = m & -m;
    out.push_back(SimdTarget{bit, hwy::TargetName(bit)});
  }
  return out;
}

// Highway 1.0.3 on Arm: SupportedTargets() resets the chosen target (dropping SVE_256 /
// SVE2_128); re-apply it after every call.
std::int64_t supported() {
  const std::int64_t s = hwy::SupportedTargets();
  hwy::GetChosenTarget().Update(s);
  return s;
}

}  // namespace

std::vector<SimdTarget> compiled_targets() { return targets_of(HWY_TARGETS); }

std::vector<SimdTarget> runnable_targets() {
  // With a forced target SupportedTargets() reports only it: detect with the mock off.
  static const std::int64_t detected = [] {
    return supported();
  }();
  return targets_of(detected & HWY_TARGETS);
}

void force_target(std::int64_t bits) {
  if (bits != 0) {
    bool ok = false;
    for (const SimdTarget& t : runnable_targets()) ok = ok || t.bits == bits;
    if (!ok)
      throw std::invalid_argument("force_target: target " + std::to_string(bits) +
                                  " is not compiled in or not supported by this CPU");
  }
  hwy::SetSupportedTargetsForTest(bits);
  supported();
}

SimdTarget active_target() {
  const std::int64_t bit = kernels::dispatched_target();
  return SimdTarget{bit, hwy::TargetName(bit)};
}

}  // namespace hrw
#endif  // HWY_ONCE
