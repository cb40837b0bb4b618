// The batch runner: the trie walk (trie_walk-inl.h) with a rank policy (policies-inl.h)
// and a selection per candidate list (top_r-inl.h), for one view (kLists = 1) or for the
// two views of a plan in one walk of their union (kLists = 3; see kernel_api.hpp).
#if defined(HRW_KERNELS_RUNNER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_RUNNER_INL_H_
#undef HRW_KERNELS_RUNNER_INL_H_
#else
#define HRW_KERNELS_RUNNER_INL_H_
#endif

#include "hwy/highway.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "kernel_api.hpp"
#include "policies-inl.h"
#include "top_r-inl.h"
#include "trie_walk-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// The kernels' working memory, kept per thread: the streaming commands call the kernels
// for every chunk of a few thousand keys, so it grows to the largest plan seen and is
// then reused instead of being allocated per call.
// (Aligned by operator new, not hwy::AllocateAligned: the kernels use no libhwy.so symbol;
// dispatch.hpp.)
class Scratch {
 public:
  uint8_t* Reserve(size_t bytes) {
    if (bytes > size_) {
      buf_.reset(static_cast<uint8_t*>(::operator new(bytes, kAlignment)));
      size_ = bytes;
    }
    return buf_.get();
  }

 private:
  // x86's widest vector (AVX-512), whose aligned Load/Store the kernels use; NEON and SVE
  // loads need no alignment.
  static constexpr std::align_val_t kAlignment{64};
  struct AlignedDelete {
    void operator()(uint8_t* p) const { ::operator delete(p, kAlignment); }
  };
  std::unique_ptr<uint8_t, AlignedDelete> buf_;
  size_t size_ = 0;
};

inline Scratch& ThreadScratch() {
  static thread_local Scratch scratch;
  return scratch;
}

// How an R = 1 owner pass treats cuts (contract §9). kVerify: list 0 ranks without cuts and
// each key's owner is then checked against its cut; a key whose owner does not clear is
// passed again with kMask (a pair that does not clear scores the lowest value). Exact: the
// argmax over all nodes, when it clears, is also the argmax over the nodes that clear (one
// total order, score desc then node asc). So the cost of cuts is one check per key plus a
// masked pass over the keys the cuts move (docs/balance.md).
enum class CutMode { kNone, kVerify, kMask };

template <class P, size_t kLists>
class Runner {
 public:
  using DU = typename P::DU;
  using DS = typename P::DS;
  using TS = typename P::TS;
  using VU = hn::Vec<DU>;
  using VS = hn::Vec<DS>;
  static_assert(kLists == 1 || kLists == 3, "one view, or a plan's two");
  static constexpr size_t kViews = kLists == 1 ? 1 : 2;
  static constexpr size_t kSlots = kMaxKernelReplicas;  // vectors per candidate list

  Runner(const KernelPlan& plan, const P& policy, const KernelOutput* out)
      : plan_(plan), p_(policy), out_(out) {
    L_ = hn::Lanes(du_);
    for (size_t l = 0; l < kLists; ++l) {
      const KernelView& side = plan.views[l == 2 ? 1 : 0];
      w_[l] = plan.weighted ? side.weights.data() : nullptr;
      cut_[l] = plan.cuts && !side.cuts.empty() ? side.cuts.data() : nullptr;
      ucut_[l] = plan.cuts && !side.cuts.empty() ? side.unit_cuts.data() : nullptr;
    }
    size_t dom = 0;
    for (size_t v = 0; v < kViews; ++v) {
      dom_off_[v] = dom;
      if (plan.distinct) dom += plan.views[v].domain_count;
    }
    // One block, carved in pieces of whole 256-byte units: each piece keeps the block's
    // alignment (HWY_ALIGNMENT), which aligned vector loads need.
    const size_t L = L_;
    // The stack holds up to 4 ways of full u32 vectors (the weighted gate walks those too).
    const size_t L32 = hn::Lanes(hn::ScalableTag<uint32_t>());
    const size_t queue = kGateQueue * L32;
    const size_t sizes[] = {
        std::max<size_t>(plan.program.slots, 1) * 4 * L32 * sizeof(uint32_t),  // stack
        4 * L32 * sizeof(uint32_t),                                              // pad
        kLists * kSlots * L * sizeof(TS), kLists * kSlots * L * sizeof(TS),   // lists
        kSlots * L * sizeof(TS), kSlots * L * sizeof(TS),                     // merge
        2 * kPend * L * sizeof(TS), kPend * L * sizeof(TS),                   // pending
        std::max<size_t>(dom, 1) * L * sizeof(TS), std::max<size_t>(dom, 1) * L * sizeof(TS),
        kSlots * L * sizeof(TS),                                               // winners' u
        4 * kMaxWeightClasses * L32 * sizeof(int32_t),                         // gate floors
        4 * kMaxWeightClasses * L32 * sizeof(int32_t),                         // class nodes
        queue * sizeof(int32_t), queue * sizeof(uint32_t), queue * sizeof(uint32_t),
        queue * sizeof(double), queue * sizeof(double),                        // gate queue
        2 * kMaxWeightClasses * 4 * L32 * sizeof(double)};                     // class winners' keys, u
    size_t total = 0;
    for (size_t s : sizes) total += (s + 255) / 256 * 256;
    uint8_t* p = ThreadScratch().Reserve(total);
    constexpr size_t kPieces = sizeof(sizes) / sizeof(sizes[0]);
    uint8_t* piece[kPieces];
    for (size_t k = 0; k < kPieces; ++k) {
      piece[k] = p;
      p += (sizes[k] + 255) / 256 * 256;
    }
    stack_ = reinterpret_cast<uint32_t*>(piece[0]);
    pad_ = reinterpret_cast<uint32_t*>(piece[1]);
    list_s_ = reinterpret_cast<TS*>(piece[2]);
    list_i_ = reinterpret_cast<TS*>(piece[3]);
    merge_s_ = reinterpret_cast<TS*>(piece[4]);
    merge_i_ = reinterpret_cast<TS*>(piece[5]);
    pend_ = reinterpret_cast<TS*>(piece[6]);
    keys_ = reinterpret_cast<TS*>(piece[7]);
    dom_s_ = reinterpret_cast<TS*>(piece[8]);
    dom_i_ = reinterpret_cast<TS*>(piece[9]);
    win_u_ = reinterpret_cast<TS*>(piece[10]);
    floors_ = reinterpret_cast<int32_t*>(piece[11]);
    class_node_ = reinterpret_cast<int32_t*>(piece[12]);
    q_s_ = reinterpret_cast<int32_t*>(piece[13]);
    q_lane_ = reinterpret_cast<uint32_t*>(piece[14]);
    q_node_ = reinterpret_cast<uint32_t*>(piece[15]);
    q_key_ = reinterpret_cast<double*>(piece[16]);
    q_u_ = reinterpret_cast<double*>(piece[17]);
    class_key_ = reinterpret_cast<double*>(piece[18]);
    class_u_ = class_key_ + kMaxWeightClasses * 4 * L32;
  }

  // Returns how many (key, view) choices are left undecided (EmitOwners).
  size_t Run(const uint32_t* states, size_t n) {
    RunSelect(states, n);
    return undecided_;
  }

 private:
  // The keys of an owner pass with CutMode::kVerify whose owner did not clear, passed again
  // with kMask into per-thread buffers and scattered back to their rows.
  void RedoMasked(const uint32_t* states) {
    std::vector<uint32_t>& rows = RedoRows();
    if (rows.empty()) return;
    const size_t m = rows.size();
    static thread_local std::vector<uint32_t> redo_states, redo_nodes;
    static thread_local std::vector<double> redo_rank;
    redo_states.resize(m);
    for (size_t k = 0; k < m; ++k) redo_states[k] = states[rows[k]];
    redo_nodes.resize(kViews * m);
    redo_rank.resize(kViews * m);
    KernelOutput tmp[kViews];
    for (size_t v = 0; v < kViews; ++v)
      tmp[v] = KernelOutput{redo_nodes.data() + v * m,
                            out_[v].rank ? redo_rank.data() + v * m : nullptr, 1};
    const KernelOutput* keep = out_;
    out_ = tmp;
    if constexpr (P::kWeighted) RunOwnerWeighted<CutMode::kMask>(redo_states.data(), m);
    else RunOwnerWide<CutMode::kMask>(redo_states.data(), m);
    out_ = keep;
    for (size_t v = 0; v < kViews; ++v)
      for (size_t k = 0; k < m; ++k) {
        const size_t at = size_t{rows[k]} * out_[v].stride;
        out_[v].nodes[at] = tmp[v].nodes[k];
        if (out_[v].rank) out_[v].rank[at] = tmp[v].rank[k];
      }
  }
  static std::vector<uint32_t>& RedoRows() {
    static thread_local std::vector<uint32_t> rows;
    return rows;
  }

  void RunSelect(const uint32_t* states, size_t n) {
    const uint32_t sel = plan_.select;
    if (!plan_.distinct && sel == 1) {
      // Contract §9: a plan without cuts takes exactly the path it took before cuts existed.
      if (!plan_.cuts) {
        if constexpr (P::kWeighted) return RunOwnerWeightedFastest<CutMode::kNone>(states, n);
        else return RunOwnerWide<CutMode::kNone>(states, n);
      }
      RedoRows().clear();
      if constexpr (P::kWeighted) {
        RunOwnerWeightedFastest<CutMode::kVerify>(states, n);
      } else {
        RunOwnerWide<CutMode::kVerify>(states, n);
      }
      return RedoMasked(states);
    }
    if (plan_.cuts) return RunTopOf<true>(sel, states, n);
    return RunTopOf<false>(sel, states, n);
  }
  // A weighted owner pass whose weight classes were assigned (kernel_plan.hpp) ranks by
  // class when view 0's weights are that few (a plan's list 0 has view 0's weights); else
  // one view takes the 32-bit gate, and a plan's two views the binary64 gate.
  template <CutMode M>
  void RunOwnerWeightedFastest(const uint32_t* states, size_t n) {
    const KernelView& view = plan_.views[0];
    if (view.exact_classes) return RunOwnerByClass<M>(states, n);
    if constexpr (kLists == 1)
      if (!view.class_weights.empty()) return RunOwnerGated<M>(states, n);
    RunOwnerWeighted<M>(states, n);
  }
  template <bool kCuts>
  void RunTopOf(uint32_t sel, const uint32_t* states, size_t n) {
    switch (sel) {
      case 1: return RunTop<1, kCuts>(states, n);
      case 2: return RunTop<2, kCuts>(states, n);
      case 3: return RunTop<3, kCuts>(states, n);
      case 4: return RunTop<4, kCuts>(states, n);
      default: return RunTop<kMaxKernelReplicas, kCuts>(states, n);
    }
  }

  static constexpr size_t kPend = 8;
  // The weighted gate's queue (RunOwnerGated), in u32 vectors: flushed once it holds
  // kGateFlush vectors of pairs; room for one more step of 4 ways and the stores' slack.
  static constexpr size_t kGateFlush = 1;
  static constexpr size_t kGateQueue = kGateFlush + 4 + 2;
  // Unweighted R = 1: kWays key vectors per pass (4 where there are 32 vector registers).
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
  static constexpr size_t kWays = 2;
#else
  static constexpr size_t kWays = 4;
#endif

  TS* ListS(size_t l) const { return list_s_ + l * kSlots * L_; }
  TS* ListI(size_t l) const { return list_i_ + l * kSlots * L_; }
  double Weight(size_t l, uint32_t node) const { return w_[l] ? w_[l][node] : 1.0; }
  uint32_t CutOf(size_t l, uint32_t node) const { return cut_[l] ? cut_[l][node] : 0; }
  double UnitCutOf(size_t l, uint32_t node) const { return ucut_[l] ? ucut_[l][node] : 0.0; }
  // The score of a pair that does not clear its node's cut (§9), and of an empty slot.
  static HWY_INLINE TS Unresolved() {
    if constexpr (P::kWeighted) return -HUGE_VAL;
    else return hwy::LowestValue<TS>();
  }
  // §9, one compare and one select per pair: s where r >= cut, else Unresolved(). The
  // compare is on the policy's Pre value: r with the sign flipped (unweighted), or
  // u = (r + 1) / 2^32 against (cut + 1) / 2^32 (weighted; both exact, and u rises with r).
  HWY_INLINE VS MaskCut(VS pre, VS s, size_t l, uint32_t node) const {
    VS bound;
    if constexpr (P::kWeighted) bound = hn::Set(ds_, UnitCutOf(l, node));
    else bound = hn::Set(ds_, static_cast<TS>(CutOf(l, node) ^ 0x80000000u));
    return hn::IfThenElse(hn::Lt(pre, bound), hn::Set(ds_, Unresolved()), s);
  }

  // The states of keys [base, base + count) padded to `lanes` lanes, into stack slot 0.
  void LoadGroup(const uint32_t* states, size_t base, size_t count, size_t lanes) {
    const uint32_t* src = states + base;
    if (count != lanes) {
      std::memcpy(pad_, states + base, count * sizeof(uint32_t));
      std::memset(pad_ + count, 0, (lanes - count) * sizeof(uint32_t));
      src = pad_;
    }
    for (size_t k = 0; k < lanes; k += L_) hn::Store(hn::LoadU(du_, src + k), du_, stack_ + k);
  }

  // Empty owner lists 1.. (kLists > 1) for `vectors` key vectors.
  void ClearOwnerLists(size_t vectors, TS lowest) {
    for (size_t l = 1; l < kLists; ++l)
      for (size_t k = 0; k < vectors; ++k) {
        hn::Store(hn::Set(ds_, lowest), ds_, ListS(l) + k * L_);
        hn::Store(hn::Set(ds_, static_cast<TS>(plan_.list_first[l])), ds_, ListI(l) + k * L_);
      }
  }

  // Offers one key vector's candidate to the owner slot (best, idx) in memory.
  // With cuts (l, node: the list and the leaf), a pair that does not clear scores Unresolved().
  template <bool kCuts = false>
  HWY_INLINE void Offer(TS* HWY_RESTRICT best, TS* HWY_RESTRICT idx, VS pre, VS ci, double w,
                        size_t l = 0, uint32_t node = 0) {
    const VS b = hn::Load(ds_, best);
    if (p_.CannotBeat(ds_, pre, b, w)) return;
    VS s = p_.Key(ds_, pre, w);
    if (kCuts && CutOf(l, node) != 0) s = MaskCut(pre, s, l, node);
    const auto gt = hn::Gt(s, b);
    hn::Store(hn::IfThenElse(gt, s, b), ds_, best);
    hn::Store(hn::IfThenElse(gt, ci, hn::Load(ds_, idx)), ds_, idx);
  }

  // Writes view v's choices of keys [base, base + count): key i's j-th choice is
  // (s, idx)[j * L + i] (an owner pass: j = 0 and i up to the ways' lanes).
  void Emit(size_t base, size_t count, size_t v, size_t slots, const TS* s, const TS* idx) {
    const KernelOutput& o = out_[v];
    if constexpr (kViews == 1 && std::is_same_v<TS, int32_t>) {
      // The common owner pass: node indices are the int32 lanes' bits, copied whole.
      if (slots == 1 && o.stride == 1 && !o.rank) {
        std::memcpy(o.nodes + base, idx, count * sizeof(uint32_t));
        return;
      }
    }
    const uint32_t* map = plan_.views[v].index.data();
    for (size_t i = 0; i < count; ++i)
      for (size_t j = 0; j < slots; ++j) {
        const auto u = static_cast<uint32_t>(idx[j * L_ + i]);
        o.nodes[(base + i) * o.stride + j] = kViews == 1 ? u : map[u];
        if (o.rank) o.rank[(base + i) * o.stride + j] = P::Rank(s[j * L_ + i]);
      }
  }

  // The owners of keys [base, base + count): list 0's in merge_, each view's own list's in
  // ListS/ListI(1 + v); view v's owner is the better of the two (score desc, node asc).
  // kMask: a lane whose owner scores Unresolved() is written as kAbsent (§9: nothing
  // cleared, or the best that cleared has r = 0; the caller decides it with the reference).
  // kVerify: the other lists were masked, list 0 was not; a key is queued for the masked
  // pass (RedoRows) when some view's owner is list 0's and does not clear, or is Unresolved().
  template <CutMode M>
  void EmitOwners(size_t base, size_t count) {
    std::vector<uint32_t>& redo = RedoRows();
    if constexpr (kLists == 1) {
      Emit(base, count, 0, 1, merge_s_, merge_i_);
      for (size_t i = 0; i < count; ++i) {
        if constexpr (M == CutMode::kMask) {
          if (merge_s_[i] == Unresolved()) {
            out_[0].nodes[(base + i) * out_[0].stride] = kAbsent;
            ++undecided_;
          }
        } else if constexpr (M == CutMode::kVerify) {
          if (!List0Clears(i)) redo.push_back(static_cast<uint32_t>(base + i));
        }
      }
    } else {
      for (size_t v = 0; v < kViews; ++v) {
        const TS* os = ListS(1 + v);
        const TS* oi = ListI(1 + v);
        const KernelOutput& o = out_[v];
        const uint32_t* map = plan_.views[v].index.data();
        for (size_t i = 0; i < count; ++i) {
          const bool own = OwnWins(v, i);
          const TS s = own ? os[i] : merge_s_[i];
          const bool undecided = M == CutMode::kMask && s == Unresolved();
          undecided_ += undecided;
          o.nodes[(base + i) * o.stride] =
              undecided ? kAbsent : map[static_cast<uint32_t>(own ? oi[i] : merge_i_[i])];
          if (o.rank) o.rank[(base + i) * o.stride] = P::Rank(s);
        }
      }
      if constexpr (M == CutMode::kVerify)
        for (size_t i = 0; i < count; ++i) {
          bool requeue = false;
          for (size_t v = 0; v < kViews; ++v) {
            const bool own = OwnWins(v, i);
            const TS s = own ? ListS(1 + v)[i] : merge_s_[i];
            requeue = requeue || s == Unresolved() || (!own && !List0Clears(i));
          }
          if (requeue) redo.push_back(static_cast<uint32_t>(base + i));
        }
    }
  }
  // Whether lane i's owner in view v is its own list's best rather than list 0's.
  HWY_INLINE bool OwnWins(size_t v, size_t i) const {
    if (plan_.list_leaves[0] == 0) return true;
    if (plan_.list_leaves[1 + v] == 0) return false;
    const TS os = ListS(1 + v)[i], oi = ListI(1 + v)[i];
    return os > merge_s_[i] || (os == merge_s_[i] && oi < merge_i_[i]);
  }
  // Whether lane i's list-0 best clears its node's cut (§9). List 0's nodes have the same
  // cut in both views (kernel_plan.cpp), so view 0's tables serve. Unweighted: flipped r >
  // cut_floors (r = 0 never passes: the masked pass leaves it to the reference, as kMask
  // does). Weighted: the winner's u (win_u_, kept by Flush) >= (cut + 1) / 2^32.
  HWY_INLINE bool List0Clears(size_t i) const {
    const auto node = static_cast<uint32_t>(merge_i_[i]);
    if constexpr (P::kWeighted) return !ucut_[0] || win_u_[i] >= ucut_[0][node];
    else return merge_s_[i] > plan_.views[0].cut_floors[node];
  }

  // Unweighted R = 1: list 0's best score and node of each lane in registers; the few
  // leaves of the other lists (a plan's added, removed or reweighted nodes) in memory.
  template <CutMode M>
  void RunOwnerWide(const uint32_t* states, size_t n) {
    constexpr bool kMaskList0 = M == CutMode::kMask;
    constexpr bool kMaskOthers = M != CutMode::kNone;
    const size_t L = L_, G = kWays * L;
    const TS lowest = hwy::LowestValue<TS>();
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      LoadGroup(states, base, count, G);
      // The list's first leaf fills the slot: every score is >= LowestValue, and its index
      // is the initial one.
      VS best0 = hn::Set(ds_, lowest), best1 = best0, best2 = best0, best3 = best0;
      VS idx0 = hn::Set(ds_, static_cast<TS>(plan_.list_first[0])), idx1 = idx0, idx2 = idx0, idx3 = idx0;
      if constexpr (kLists > 1) ClearOwnerLists(kWays, lowest);
      const int32_t* floors = kMaskList0 ? plan_.views[0].cut_floors.data() : nullptr;
      WalkTrie<kWays>(du_, plan_.program, stack_,
                      [&](const Op& op, VU h0, VU h1, VU h2, VU h3) HWY_ATTR {
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        VS s0 = p_.Pre(du_, ds_, h0);
        VS s1 = p_.Pre(du_, ds_, h1);
        VS s2 = kWays == 4 ? p_.Pre(du_, ds_, h2) : s0;
        VS s3 = kWays == 4 ? p_.Pre(du_, ds_, h3) : s0;
        if (kLists == 1 || op.lists == 1) {
          // §9 folded into the argmax, one Max per pair and no branch: s replaces best
          // when s > best and s >= cut, i.e. s > Max(best, floor), floor = the flipped
          // cut - 1 (KernelView::cut_floors; cut 0 or 1: the lowest value, a no-op). A
          // lane where nothing cleared keeps best = Unresolved() (EmitOwners).
          // A node without a cut (floor the lowest value) skips the Max: a scalar test on
          // the integer ports instead of a vector op per way.
          VS floor = hn::Zero(ds_);
          bool cut = false;
          if constexpr (kMaskList0) {
            cut = floors[op.node] != lowest;
            floor = hn::Set(ds_, floors[op.node]);
          }
          const auto gt0 = hn::Gt(s0, cut ? hn::Max(best0, floor) : best0);
          const auto gt1 = hn::Gt(s1, cut ? hn::Max(best1, floor) : best1);
          best0 = hn::IfThenElse(gt0, s0, best0);
          best1 = hn::IfThenElse(gt1, s1, best1);
          idx0 = hn::IfThenElse(gt0, ci, idx0);
          idx1 = hn::IfThenElse(gt1, ci, idx1);
          if constexpr (kWays == 4) {
            const auto gt2 = hn::Gt(s2, cut ? hn::Max(best2, floor) : best2);
            const auto gt3 = hn::Gt(s3, cut ? hn::Max(best3, floor) : best3);
            best2 = hn::IfThenElse(gt2, s2, best2);
            best3 = hn::IfThenElse(gt3, s3, best3);
            idx2 = hn::IfThenElse(gt2, ci, idx2);
            idx3 = hn::IfThenElse(gt3, ci, idx3);
          }
          return;
        }
        for (size_t l = 1; l < kLists; ++l) {
          if (!((op.lists >> l) & 1)) continue;
          Offer<kMaskOthers>(ListS(l), ListI(l), s0, ci, 1.0, l, op.node);
          Offer<kMaskOthers>(ListS(l) + L, ListI(l) + L, s1, ci, 1.0, l, op.node);
          if constexpr (kWays == 4) {
            Offer<kMaskOthers>(ListS(l) + 2 * L, ListI(l) + 2 * L, s2, ci, 1.0, l, op.node);
            Offer<kMaskOthers>(ListS(l) + 3 * L, ListI(l) + 3 * L, s3, ci, 1.0, l, op.node);
          }
        }
      });
      hn::Store(best0, ds_, merge_s_);
      hn::Store(best1, ds_, merge_s_ + L);
      hn::Store(idx0, ds_, merge_i_);
      hn::Store(idx1, ds_, merge_i_ + L);
      if constexpr (kWays == 4) {
        hn::Store(best2, ds_, merge_s_ + 2 * L);
        hn::Store(best3, ds_, merge_s_ + 3 * L);
        hn::Store(idx2, ds_, merge_i_ + 2 * L);
        hn::Store(idx3, ds_, merge_i_ + 3 * L);
      }
      EmitOwners<M>(base, count);
    }
  }

  // Weighted R = 1. The gate (Weighted::CannotBeat) decides most candidates without a
  // logarithm; the rest are queued (up to kPend per key vector, in node order) and their
  // logarithms are computed together, so the long ln chains overlap instead of each one
  // waiting for the previous best (and the gate's branch no longer waits for a logarithm).
  // The gate compares with the best as of the last flush: best only grows, so "cannot beat
  // the older best" still proves the candidate would not replace the current one (strict
  // Gt), and queued candidates are merged in node order with strict Gt: the same result as
  // one at a time. That is list 0; the other lists' few leaves are offered one at a time.
  // kVerify also keeps the winner's u (bu), which List0Clears compares with its cut.
  template <CutMode M>
  HWY_INLINE void Flush(const TS* pu, const uint32_t* pn, size_t np, VS& best, VS& idx,
                        VS& bu) {
    const size_t L = L_;
    for (size_t j = 0; j < np; ++j) {
      const VS u = hn::Load(ds_, pu + j * L);
      const VS l = DetLn(ds_, u);
      const double w = w_[0][pn[j]];
      VS key = w == 1.0 ? l : hn::Div(l, hn::Set(ds_, w));  // x/1 == x
      if constexpr (M == CutMode::kMask) key = MaskCut(u, key, 0, pn[j]);  // cut 0: a no-op
      hn::Store(key, ds_, keys_ + j * L);
    }
    for (size_t j = 0; j < np; ++j) {
      const VS sj = hn::Load(ds_, keys_ + j * L);
      const auto gt = hn::Gt(sj, best);
      best = hn::IfThenElse(gt, sj, best);
      idx = hn::IfThenElse(gt, hn::Set(ds_, static_cast<TS>(pn[j])), idx);
      if constexpr (M == CutMode::kVerify) bu = hn::IfThenElse(gt, hn::Load(ds_, pu + j * L), bu);
    }
  }
  template <CutMode M>
  void RunOwnerWeighted(const uint32_t* states, size_t n) {
    constexpr bool kMaskOthers = M != CutMode::kNone;
    const size_t L = L_, G = 2 * L;
    const VS ninf = hn::Set(ds_, -HUGE_VAL);
    TS* pend0 = pend_;
    TS* pend1 = pend_ + kPend * L;
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      LoadGroup(states, base, count, G);
      VS best0 = ninf, best1 = ninf;  // every key ln(u)/w is finite: the first replaces -inf
      VS idx0 = hn::Set(ds_, static_cast<TS>(plan_.list_first[0])), idx1 = idx0;
      VS bu0 = hn::Zero(ds_), bu1 = bu0;  // the winners' u (kVerify)
      if constexpr (kLists > 1) ClearOwnerLists(2, -HUGE_VAL);
      uint32_t pn0[kPend], pn1[kPend];
      size_t np0 = 0, np1 = 0;
      WalkTrie<2>(du_, plan_.program, stack_, [&](const Op& op, VU h0, VU h1, VU, VU) HWY_ATTR {
        const VS u0 = p_.Pre(du_, ds_, h0);
        const VS u1 = p_.Pre(du_, ds_, h1);
        if (kLists > 1 && op.lists != 1) {
          const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
          for (size_t l = 1; l < kLists; ++l) {
            if (!((op.lists >> l) & 1)) continue;
            const double w = Weight(l, op.node);
            Offer<kMaskOthers>(ListS(l), ListI(l), u0, ci, w, l, op.node);
            Offer<kMaskOthers>(ListS(l) + L, ListI(l) + L, u1, ci, w, l, op.node);
          }
          return;
        }
        const double w = w_[0][op.node];
        // Queue without a data-dependent branch: store, then count it only if needed.
        hn::Store(u0, ds_, pend0 + np0 * L);
        hn::Store(u1, ds_, pend1 + np1 * L);
        pn0[np0] = op.node;
        pn1[np1] = op.node;
        bool skip0, skip1;
        if constexpr (M == CutMode::kMask) {  // §9: a lane that does not clear cannot beat either
          const VS bound = hn::Set(ds_, UnitCutOf(0, op.node));
          skip0 = p_.CannotBeatOrFails(ds_, u0, best0, w, bound);
          skip1 = p_.CannotBeatOrFails(ds_, u1, best1, w, bound);
        } else {
          skip0 = p_.CannotBeat(ds_, u0, best0, w);
          skip1 = p_.CannotBeat(ds_, u1, best1, w);
        }
        np0 += skip0 ? 0 : 1;
        np1 += skip1 ? 0 : 1;
        if (np0 == kPend) {
          Flush<M>(pend0, pn0, np0, best0, idx0, bu0);
          np0 = 0;
        }
        if (np1 == kPend) {
          Flush<M>(pend1, pn1, np1, best1, idx1, bu1);
          np1 = 0;
        }
      });
      Flush<M>(pend0, pn0, np0, best0, idx0, bu0);
      Flush<M>(pend1, pn1, np1, best1, idx1, bu1);
      hn::Store(best0, ds_, merge_s_);
      hn::Store(best1, ds_, merge_s_ + L);
      hn::Store(idx0, ds_, merge_i_);
      hn::Store(idx1, ds_, merge_i_ + L);
      if constexpr (M == CutMode::kVerify) {
        hn::Store(bu0, ds_, win_u_);
        hn::Store(bu1, ds_, win_u_ + L);
      }
      EmitOwners<M>(base, count);
    }
  }

  // A plan's leaf of lists 1 and 2 in a pass over u32 ways (RunOwnerByClass): each way's
  // f64 halves offered to the lists' slots (ListS/ListI, key i at i), one at a time.
  template <bool kMaskOthers, class V32>
  HWY_INLINE void OfferOtherLists(const Op& op, V32 h0, V32 h1, V32 h2, V32 h3) {
    const hn::ScalableTag<uint32_t> d32;
    const hn::Rebind<uint32_t, DS> dh;
    const size_t L = hn::Lanes(d32), L64 = L_;
    hn::Store(h0, d32, pad_);
    hn::Store(h1, d32, pad_ + L);
    if constexpr (kWays == 4) {
      hn::Store(h2, d32, pad_ + 2 * L);
      hn::Store(h3, d32, pad_ + 3 * L);
    }
    const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
    for (size_t k = 0; k < kWays * L; k += L64) {
      const VS u = p_.Pre(dh, ds_, hn::LoadU(dh, pad_ + k));
      for (size_t l = 1; l < kLists; ++l)
        if ((op.lists >> l) & 1)
          Offer<kMaskOthers>(ListS(l) + k, ListI(l) + k, u, ci, Weight(l, op.node), l, op.node);
    }
  }

  // Weighted R = 1 of one view with at most kMaxWeightClasses distinct weights
  // (KernelView::exact_classes). Within a class every node has the same weight w, and
  // det::weighted_key(r, w) = det::ln(u) / w is strictly increasing in r: neighbouring grid
  // points u = (r + 1) / 2^32 differ in ln u by about 2^-32 / u, a relative step of more
  // than 2^-32 (|ln u| < 1/u - 1 < 1/u for u < 1, and ln 1 = 0 is exact), far above det::ln's
  // relative error (< 2^-50) and the division's rounding (2^-53), which are monotone or
  // too small to reorder two such values (pinned by a test over det::ln's range-reduction
  // points and the grid's ends). So each class's best pair is its unweighted argmax, the
  // highest r with ties to the earlier node (equal r, equal key), found at the width and
  // cost of an unweighted pair; only each class's winner pays det::ln, and the owner is the
  // best of the classes' winners under (key desc, node asc).
  //
  // A plan (kLists = 3) ranks list 0 so; the few leaves of lists 1 and 2 (nodes added,
  // removed or reweighted) are offered one f64 half at a time through the binary64 gate,
  // as RunOwnerWeighted does, and EmitOwners merges the lists.
  template <CutMode M>
  void RunOwnerByClass(const uint32_t* states, size_t n) {
    constexpr bool kMaskOthers = M != CutMode::kNone;
    const hn::ScalableTag<uint32_t> d32;
    const hn::ScalableTag<int32_t> di32;
    const hn::Rebind<uint32_t, DS> dh;
    const hn::Rebind<int32_t, DS> dhi;
    using V32 = hn::Vec<decltype(d32)>;
    const Unweighted flipped{p_.fmix};  // r ^ 2^31 as int32: signed order = order of r
    const Weighted unit{false};         // Pre without fmix: u = (r + 1) / 2^32
    const size_t L = hn::Lanes(d32), G = kWays * L, L64 = L_;
    const KernelView& view = plan_.views[0];
    const uint8_t* cls = view.weight_class.data();
    const size_t K = view.class_weights.size();
    int32_t* const class_r = floors_;   // [class][key]: the class's best flipped r so far
    int32_t* const class_node = class_node_;  // and its node
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      LoadGroup(states, base, count, G);
      // Each class's first node fills its slot: every flipped r is >= the lowest int32.
      if constexpr (kLists > 1) ClearOwnerLists(G / L64, -HUGE_VAL);
      for (size_t c = 0; c < K; ++c)
        for (size_t k = 0; k < G; k += L) {
          hn::Store(hn::Set(di32, hwy::LowestValue<int32_t>()), di32, class_r + c * G + k);
          hn::Store(hn::Set(di32, static_cast<int32_t>(view.class_first[c])), di32,
                    class_node + c * G + k);
        }
      WalkTrie<kWays>(d32, plan_.program, stack_,
                      [&](const Op& op, V32 h0, V32 h1, V32 h2, V32 h3) HWY_ATTR {
        if (kLists > 1 && op.lists != 1) {
          OfferOtherLists<kMaskOthers>(op, h0, h1, h2, h3);
          return;
        }
        int32_t* HWY_RESTRICT br = class_r + cls[op.node] * G;
        int32_t* HWY_RESTRICT bn = class_node + cls[op.node] * G;
        const auto node = hn::Set(di32, static_cast<int32_t>(op.node));
        auto offer = [&](V32 h, size_t way) HWY_ATTR {
          const auto s = flipped.Pre(d32, di32, h);
          const auto best = hn::Load(di32, br + way * L);
          const auto gt = hn::Gt(s, best);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
          // AVX-512 stores under a mask in one op: no selects, no load of the nodes. (AVX2's
          // masked store, vpmaskmovd, is slow on AMD cores: selects there.)
          hn::BlendedStore(s, gt, di32, br + way * L);
          hn::BlendedStore(node, gt, di32, bn + way * L);
#else
          hn::Store(hn::IfThenElse(gt, s, best), di32, br + way * L);
          hn::Store(hn::IfThenElse(gt, node, hn::Load(di32, bn + way * L)), di32, bn + way * L);
#endif
        };
        offer(h0, 0);
        offer(h1, 1);
        if constexpr (kWays == 4) {
          offer(h2, 2);
          offer(h3, 3);
        }
      });
      // Each class winner's key first, all of them: the det::ln of different lanes and
      // classes are independent chains, so they overlap instead of each waiting for the
      // last (merging class by class inside one loop made the merge latency-bound).
      for (size_t c = 0; c < K; ++c) {
        if (kLists > 1 && view.class_first[c] == kAbsent) continue;  // no list-0 node
        const double weight = view.class_weights[c];
        // x / w, or x * (1 / w) when w is a power of two: then 1 / w is exact and both are
        // the same real number rounded once, so the same bits (x / 1 == x), at the cost of a
        // multiply instead of a division, the slowest op of the merge.
        const bool power_of_two = (std::bit_cast<uint64_t>(weight) & 0x000FFFFFFFFFFFFFull) == 0 &&
                                  weight >= 0x1p-1022 && weight <= 0x1p1022;
        const VS w = hn::Set(ds_, power_of_two ? 1.0 / weight : weight);
        for (size_t k = 0; k < G; k += L64) {
          const auto r = hn::Xor(hn::BitCast(dh, hn::LoadU(dhi, class_r + c * G + k)),
                                 hn::Set(dh, 0x80000000u));
          const VS u = unit.Pre(dh, ds_, r);
          const VS ln = DetLn(ds_, u);
          hn::Store(power_of_two ? hn::Mul(ln, w) : hn::Div(ln, w), ds_, class_key_ + c * G + k);
          if constexpr (M == CutMode::kVerify) hn::Store(u, ds_, class_u_ + c * G + k);
        }
      }
      for (size_t k = 0; k < G; k += L64) {
        VS best = hn::Set(ds_, -HUGE_VAL), idx = hn::Set(ds_, static_cast<TS>(plan_.list_first[0]));
        VS bu = hn::Zero(ds_);
        for (size_t c = 0; c < K; ++c) {
          if (kLists > 1 && view.class_first[c] == kAbsent) continue;
          const VS key = hn::Load(ds_, class_key_ + c * G + k);
          const VS node = hn::PromoteTo(ds_, hn::LoadU(dhi, class_node + c * G + k));
          const auto gt = hn::Or(hn::Gt(key, best), hn::And(hn::Eq(key, best), hn::Lt(node, idx)));
          best = hn::IfThenElse(gt, key, best);
          idx = hn::IfThenElse(gt, node, idx);
          if constexpr (M == CutMode::kVerify) bu = hn::IfThenElse(gt, hn::Load(ds_, class_u_ + c * G + k), bu);
        }
        hn::Store(best, ds_, merge_s_ + k);
        hn::Store(idx, ds_, merge_i_ + k);
        if constexpr (M == CutMode::kVerify) hn::Store(bu, ds_, win_u_ + k);
      }
      EmitOwners<M>(base, count);
    }
  }

  // Weighted R = 1 of one view (kNone, kVerify): the gate in 32-bit lanes. Each pair's
  // sign-flipped r is compared, at the width and cost of an unweighted pair, with its
  // lane's floor for the node's weight class (gate_floor, kernel_api.hpp: the binary64
  // gate itself, in integers); the few pairs that pass are compacted into a queue (lane,
  // node, r) whose det::ln runs at full binary64 width. The queue is merged into the
  // lanes' bests in queue order, which per lane is node order (strict Gt: ties keep the
  // earlier node), and the floors of the ways whose bests changed are recomputed. Between
  // flushes a floor lags its best; bests only grow, so a lagging floor only lets more
  // pairs through, as the older best of Flush does.
  template <CutMode M>
  void RunOwnerGated(const uint32_t* states, size_t n) {
    static_assert(kLists == 1, "one view");
    const hn::ScalableTag<uint32_t> d32;
    const hn::ScalableTag<int32_t> di32;
    using V32 = hn::Vec<decltype(d32)>;
    const Unweighted flipped{p_.fmix};  // r ^ 2^31 as int32, the floors' domain
    const size_t L = hn::Lanes(d32), G = kWays * L;
    const KernelView& view = plan_.views[0];
    const uint8_t* cls = view.weight_class.data();
    const size_t K = view.class_weights.size(), way_stride = K * L;
    const auto lanes = hn::Iota(di32, 0);
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      LoadGroup(states, base, count, G);
      for (size_t k = 0; k < G; k += L_) {
        hn::Store(hn::Set(ds_, -HUGE_VAL), ds_, merge_s_ + k);
        hn::Store(hn::Set(ds_, static_cast<TS>(plan_.list_first[0])), ds_, merge_i_ + k);
        hn::Store(hn::Zero(ds_), ds_, win_u_ + k);
      }
      for (size_t k = 0; k < kWays * way_stride; k += L)
        hn::Store(hn::Set(di32, hwy::LowestValue<int32_t>()), di32, floors_ + k);  // best -inf
      size_t nq = 0;
      WalkTrie<kWays>(d32, plan_.program, stack_,
                      [&](const Op& op, V32 h0, V32 h1, V32 h2, V32 h3) HWY_ATTR {
        const int32_t* floor = floors_ + cls[op.node] * L;
        const auto s0 = flipped.Pre(d32, di32, h0);
        const auto s1 = flipped.Pre(d32, di32, h1);
        const auto skip0 = hn::Lt(s0, hn::Load(di32, floor));
        const auto skip1 = hn::Lt(s1, hn::Load(di32, floor + way_stride));
        auto skip = hn::And(skip0, skip1);
        hn::Vec<decltype(di32)> s2 = s0, s3 = s0;
        auto skip2 = skip0, skip3 = skip0;
        if constexpr (kWays == 4) {
          s2 = flipped.Pre(d32, di32, h2);
          s3 = flipped.Pre(d32, di32, h3);
          skip2 = hn::Lt(s2, hn::Load(di32, floor + 2 * way_stride));
          skip3 = hn::Lt(s3, hn::Load(di32, floor + 3 * way_stride));
          skip = hn::And(skip, hn::And(skip2, skip3));
        }
        if (HWY_LIKELY(hn::AllTrue(di32, skip))) return;
        const auto node = hn::Set(di32, static_cast<int32_t>(op.node));
        auto enqueue = [&](hn::Vec<decltype(di32)> s, decltype(skip) sk, size_t way) HWY_ATTR {
          const auto pass = hn::Not(sk);
          hn::StoreU(hn::Compress(s, pass), di32, q_s_ + nq);
          hn::StoreU(hn::BitCast(d32, hn::Compress(hn::Add(lanes, hn::Set(di32, static_cast<int32_t>(way * L))), pass)), d32, q_lane_ + nq);
          hn::StoreU(hn::BitCast(d32, node), d32, q_node_ + nq);
          nq += hn::CountTrue(di32, pass);
        };
        enqueue(s0, skip0, 0);
        enqueue(s1, skip1, 1);
        if constexpr (kWays == 4) {
          enqueue(s2, skip2, 2);
          enqueue(s3, skip3, 3);
        }
        if (nq >= kGateFlush * L) {
          FlushGated<M>(nq);
          nq = 0;
        }
      });
      if (nq != 0) FlushGated<M>(nq);
      EmitOwners<M>(base, count);
    }
  }
  // The queue's nq pairs: their rank keys det::ln(u) / w at full width, merged in queue
  // order into (merge_s_, merge_i_) and, for kVerify, the winners' u; then new floors.
  template <CutMode M>
  void FlushGated(size_t nq) {
    const hn::Rebind<uint32_t, DS> dh;
    const hn::Rebind<int32_t, DS> dhi;
    const hn::RebindToUnsigned<DS> du64;
    const hn::RebindToSigned<DS> di64;
    const Weighted unit{false};  // Pre without fmix: u = (r + 1) / 2^32
    const size_t L = hn::Lanes(hn::ScalableTag<uint32_t>()), L64 = L_;
    const KernelView& view = plan_.views[0];
    const size_t padded = (nq + L64 - 1) / L64 * L64;
    for (size_t j = nq; j < padded; ++j) q_s_[j] = 0, q_node_[j] = 0;  // node 0 exists
    for (size_t j = 0; j < padded; j += L64) {
      const auto r = hn::Xor(hn::BitCast(dh, hn::LoadU(dhi, q_s_ + j)), hn::Set(dh, 0x80000000u));
      const VS u = unit.Pre(dh, ds_, r);
      const auto node = hn::PromoteTo(du64, hn::LoadU(dh, q_node_ + j));
      const VS w = hn::GatherIndex(ds_, view.weights.data(), hn::BitCast(di64, node));
      hn::StoreU(hn::Div(DetLn(ds_, u), w), ds_, q_key_ + j);  // x / 1 == x: every weight divides
      if constexpr (M == CutMode::kVerify) hn::StoreU(u, ds_, q_u_ + j);
    }
    // Without branches (whether a queued pair wins is a coin toss): selects on the bits.
    uint32_t changed = 0;  // ways whose bests changed
    auto select = [](uint64_t take, double a, double b) {
      return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & take) |
                                        (std::bit_cast<uint64_t>(b) & ~take));
    };
    for (size_t e = 0; e < nq; ++e) {
      const uint32_t lane = q_lane_[e];
      const double key = q_key_[e];
      const bool gt = key > merge_s_[lane];
      const uint64_t take = 0 - static_cast<uint64_t>(gt);
      merge_s_[lane] = select(take, key, merge_s_[lane]);
      merge_i_[lane] = select(take, static_cast<TS>(q_node_[e]), merge_i_[lane]);
      if constexpr (M == CutMode::kVerify) win_u_[lane] = select(take, q_u_[e], win_u_[lane]);
      changed |= static_cast<uint32_t>(gt) << (lane / L);
    }
    const size_t K = view.class_weights.size();
    for (size_t way = 0; way < kWays; ++way) {
      if (((changed >> way) & 1) == 0) continue;
      const VS lo = hn::Load(ds_, merge_s_ + way * L);
#if HWY_TARGET == HWY_SCALAR
      for (size_t c = 0; c < K; ++c)
        hn::Store(p_.GateFloor(ds_, lo, view.class_weights[c]), dhi, floors_ + (way * K + c) * L);
#else
      // Whole vectors, as the gate loads them: a load that spans two smaller stores would
      // wait for both to retire instead of being forwarded.
      const hn::ScalableTag<int32_t> di32;
      const VS hi = hn::Load(ds_, merge_s_ + way * L + L64);
      for (size_t c = 0; c < K; ++c) {
        const double w = view.class_weights[c];
        hn::Store(hn::Combine(di32, p_.GateFloor(ds_, hi, w), p_.GateFloor(ds_, lo, w)), di32,
                  floors_ + (way * K + c) * L);
      }
#endif
    }
  }

  // View v's choices of keys [base, base + count) in s (its select slots): with cuts, a key
  // whose last choice scores Unresolved() is left undecided, its first choice kAbsent (§9:
  // fewer than select nodes or domains cleared, or one that cleared has r = 0; the caller
  // places it with the reference). Otherwise the choices are the first select that clear.
  void MarkUndecided(size_t base, size_t count, size_t v, const TS* s) {
    const KernelOutput& o = out_[v];
    const TS* last = s + (plan_.views[v].select - 1) * L_;
    for (size_t i = 0; i < count; ++i)
      if (last[i] == Unresolved()) {
        o.nodes[(base + i) * o.stride] = kAbsent;
        ++undecided_;
      }
  }

  // Top-kR (kR >= every view's select), with or without failure domains. One key vector
  // per pass; the kR sorted (score, node) slots of each lane live in L1. With cuts (§9) a
  // pair that does not clear its node's cut scores Unresolved() (MaskCut): the top-R are
  // then the first R that clear, the domain representatives each domain's best that clears.
  template <size_t kR, bool kCuts>
  void RunTop(const uint32_t* states, size_t n) {
    const size_t L = L_;
    const bool distinct = plan_.distinct;
    const TS lowest = hwy::LowestValue<TS>();
    for (size_t base = 0; base < n; base += L) {
      const size_t count = std::min(L, n - base);
      LoadGroup(states, base, count, L);
      for (size_t l = 0; l < kLists; ++l)
        for (size_t j = 0; j < kR; ++j) {
          hn::Store(hn::Set(ds_, lowest), ds_, ListS(l) + j * L);
          hn::Store(hn::Set(ds_, static_cast<TS>(-1)), ds_, ListI(l) + j * L);
        }
      size_t seen[kLists] = {};  // leaves offered to each list so far
      WalkTrie<1>(du_, plan_.program, stack_, [&](const Op& op, VU h, VU, VU, VU) HWY_ATTR {
        const VS pre = p_.Pre(du_, ds_, h);
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        if (!distinct) {
          for (size_t l = 0; l < kLists; ++l) {
            if (kLists > 1 && !((op.lists >> l) & 1)) continue;
            const size_t fill = seen[l]++;
            const double w = Weight(l, op.node);
            TS* best = ListS(l);
            if (fill >= kR && p_.CannotBeat(ds_, pre, hn::Load(ds_, best + (kR - 1) * L), w))
              continue;
            VS key = p_.Key(ds_, pre, w);
            if constexpr (kCuts) key = MaskCut(pre, key, l, op.node);
            Insert<kR, false>(ds_, best, ListI(l), key, ci, std::min(fill, kR));
          }
          return;
        }
        // Each view's domain representatives; the key is computed once per distinct weight.
        VS key = pre;
        double key_w = -1.0;  // weights are > 0: no key yet
        for (size_t v = 0; v < kViews; ++v) {
          const KernelView& side = plan_.views[v];
          if (kViews > 1 && side.index[op.node] == kAbsent) continue;
          const size_t d = dom_off_[v] + side.domain[op.node];
          TS* ps = dom_s_ + d * L;
          TS* pi = dom_i_ + d * L;
          const double w = plan_.weighted ? side.weights[op.node] : 1.0;
          // View v's cut: list 0 carries view 0's, list 2 view 1's (the constructor).
          const size_t cut_list = v == 0 ? 0 : 2;
          if (side.first_in_domain[op.node]) {
            if (key_w != w) {
              key = p_.Key(ds_, pre, w);
              key_w = w;
            }
            hn::Store(kCuts ? MaskCut(pre, key, cut_list, op.node) : key, ds_, ps);
            hn::Store(ci, ds_, pi);
            continue;
          }
          const VS bs = hn::Load(ds_, ps);
          if (p_.CannotBeat(ds_, pre, bs, w)) continue;
          if (key_w != w) {
            key = p_.Key(ds_, pre, w);
            key_w = w;
          }
          const VS kv = kCuts ? MaskCut(pre, key, cut_list, op.node) : key;
          const auto gt = hn::Gt(kv, bs);  // strict: ties keep the earlier (smaller) id
          hn::Store(hn::IfThenElse(gt, kv, bs), ds_, ps);
          hn::Store(hn::IfThenElse(gt, ci, hn::Load(ds_, pi)), ds_, pi);
        }
      });
      for (size_t v = 0; v < kViews; ++v) {
        const uint32_t select = plan_.views[v].select;
        if (distinct) {
          // Walking the ranking and skipping taken domains accepts exactly each domain's
          // best node, in ranking order: the top-R of the representatives under
          // (score desc, node index asc).
          TS* best = ListS(v);
          TS* idx = ListI(v);
          const size_t domains = plan_.views[v].domain_count;
          for (size_t d = 0; d < domains; ++d)
            Insert<kR, true>(ds_, best, idx, hn::Load(ds_, dom_s_ + (dom_off_[v] + d) * L),
                             hn::Load(ds_, dom_i_ + (dom_off_[v] + d) * L), d < kR ? d : kR);
          Emit(base, count, v, select, best, idx);
          if constexpr (kCuts) MarkUndecided(base, count, v, best);
        } else if (kLists == 1) {
          Emit(base, count, v, select, ListS(0), ListI(0));
          if constexpr (kCuts) MarkUndecided(base, count, v, ListS(0));
        } else {
          // View v's top-kR = list 0's merged with list 1 + v's.
          std::memcpy(merge_s_, ListS(0), kR * L * sizeof(TS));
          std::memcpy(merge_i_, ListI(0), kR * L * sizeof(TS));
          const size_t have0 = std::min<size_t>(plan_.list_leaves[0], kR);
          const size_t own = std::min<size_t>(plan_.list_leaves[1 + v], kR);
          for (size_t j = 0; j < own; ++j)
            Insert<kR, true>(ds_, merge_s_, merge_i_, hn::Load(ds_, ListS(1 + v) + j * L),
                             hn::Load(ds_, ListI(1 + v) + j * L), std::min(have0 + j, kR));
          Emit(base, count, v, select, merge_s_, merge_i_);
          if constexpr (kCuts) MarkUndecided(base, count, v, merge_s_);
        }
      }
    }
  }

  const KernelPlan& plan_;
  P p_;
  const KernelOutput* out_;
  DU du_;
  DS ds_;
  size_t L_ = 0;
  size_t undecided_ = 0;
  const double* w_[kLists];
  const uint32_t* cut_[kLists];
  const double* ucut_[kLists];
  size_t dom_off_[kViews];
  uint32_t* stack_;
  uint32_t* pad_;
  TS *list_s_, *list_i_, *merge_s_, *merge_i_, *pend_, *keys_, *dom_s_, *dom_i_, *win_u_;
  int32_t *floors_, *class_node_, *q_s_;
  uint32_t *q_lane_, *q_node_;
  double *q_key_, *q_u_;
  double *class_key_, *class_u_;  // RunOwnerByClass: [class][key] its winner's key and u
};

// Runs plan on n key states with the policy of its rank rule.
// Returns the undecided count of Runner::Run.
template <size_t kLists>
HWY_INLINE size_t RunPlan(const KernelPlan& plan, const uint32_t* states, size_t n,
                          const KernelOutput* out) {
  if (n == 0) return 0;
  if (plan.weighted) return Runner<Weighted, kLists>(plan, Weighted{plan.fmix}, out).Run(states, n);
  return Runner<Unweighted, kLists>(plan, Unweighted{plan.fmix}, out).Run(states, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
