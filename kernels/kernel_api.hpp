// Internal interface between the batch engine (src/core/placement.cpp) and the Highway kernels
// (kernels/*.cc, one per entry point; the per-target code is in kernels/*-inl.h). Not
// installed: include/hrw/ holds the public API.
//
// The node ids of a view are compiled into a flat "trie program" (src/core/node_trie.cpp): a
// preorder walk of the compressed trie of the id-sorted ids, so a shared prefix such as
// "node-0" is hashed once per key instead of once per node. The kernel runs the program on
// vectors of FNV-1a states (one key per lane):
//   kExtend: slot[dst] = FNV-continue(slot[src], bytes)
//   kLeaf:   h = FNV-continue(slot[src], bytes) is the FNV-1a of seed ‖ key ‖ id(node);
//            finish it (fmix32 / identity, weighted key) and offer it to the selection.
// Slot 0 holds the state after seed ‖ key. Leaves appear in node-index order (preorder of
// a trie of memcmp-sorted ids = memcmp order), which is the tie order of the contract, so
// "replace only when strictly better" resolves ties for free.
//
// A plan compares two views (hrw plan): the program is then the trie of the UNION of their
// ids, walked once per key. Program node u (the u-th leaf) maps to each view's own node
// index; its leaf is offered to up to three candidate lists (Op::lists):
//   list 0: leaves in both views with the same rank rule (unweighted, or equal weights):
//           one score serves both views;
//   list 1 + v: view v's other leaves (only in v, or weighted differently there).
// View v's ranking is list 0 merged with list 1 + v under (score desc, node asc), and
// program-node order is memcmp order, which is each view's index order restricted, so
// the ties come out as in the view alone. A one-view plan puts every leaf in list 0.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hrw::kernels {

enum OpKind : std::uint32_t { kExtend = 0, kLeaf = 1 };

struct Op {
  std::uint32_t kind = kExtend;
  std::uint32_t src = 0;     // slot read
  std::uint32_t dst = 0;     // slot written (kExtend)
  std::uint32_t offset = 0;  // bytes [offset, offset + length) of TrieProgram::bytes
  std::uint32_t length = 0;
  std::uint32_t node = 0;    // kLeaf: program node index (leaf order)
  std::uint32_t lists = 1;   // kLeaf: bit l set when the leaf is offered to list l
};

struct TrieProgram {
  std::vector<Op> ops;
  std::vector<std::uint8_t> bytes;
  std::uint32_t slots = 1;   // stack slots used, slot 0 included
  std::uint32_t leaves = 0;  // = node count
};

// Largest replica count the kernels select in registers; larger R uses the reference.
inline constexpr std::uint32_t kMaxKernelReplicas = 8;

// A program node that is not in a view.
inline constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

// One view's side of a kernel plan; every table is indexed by program node.
struct KernelView {
  std::vector<std::uint32_t> index;  // the view's node index, or kAbsent
  std::vector<double> weights;       // weighted plans only (0 where absent)
  // Failure domains ("distinct LABEL"), distinct plans only: each domain's best node is
  // its representative, and the best `select` representatives are chosen (ties by node).
  std::vector<std::uint32_t> domain;
  std::vector<std::uint8_t> first_in_domain;  // the domain's first node in node order
  std::uint32_t domain_count = 0;
  // The best `select` candidates per key, 1 <= select <= kMaxKernelReplicas.
  std::uint32_t select = 1;
  // Contract §9, plans with cuts only (KernelPlan::cuts): each node's cut on r and the same
  // bound on u, (cut + 1) / 2^32 (exact), for the weighted rule; 0 where absent.
  std::vector<std::uint32_t> cuts;
  std::vector<double> unit_cuts;
  // The same cut as the largest sign-flipped r that does not clear, (max(cut, 1) - 1) ^
  // 2^31 as int32 (the lowest int32 where every r clears), for the unweighted argmax; filled
  // for every view of a plan with cuts, also a view without cuts.
  std::vector<std::int32_t> cut_floors;
  // Weighted views: each program node's weight class and each class's largest weight: up
  // to kMaxWeightClasses classes, one per distinct weight when there are that few (exact:
  // the kernels then rank each class by r alone), else consecutive runs of the sorted
  // weights (the gate in 32-bit lanes, gate_floor below); each class's first node (in a
  // plan's view 0: among list 0's leaves; kAbsent when it has none).
  std::vector<std::uint8_t> weight_class;
  std::vector<double> class_weights;
  std::vector<std::uint32_t> class_first;
  bool exact_classes = false;
};

inline constexpr std::size_t kMaxWeightClasses = 8;

// The weighted gate in 32-bit lanes (contract §4; kernels/policies-inl.h GateFloor does
// the same ops in vectors). For a key whose best rank key so far is `best` (-inf before
// the first pair) and a node of weight w' <= w, a pair whose sign-flipped r (r ^ 2^31 as
// int32) is below gate_floor(best, w) cannot rank strictly above `best`, so its det::ln
// is skipped. Why: with Q = fl(fl(best * w) * (1 + 2^-50)), the binary64 gate proves
// det::ln(u) / w' <= best from u - 1 < Q (Weighted::Beaten, for w' = w; for w' < w,
// best * w' >= best * w >= Q as best <= 0). u - 1 = (r + 1 - 2^32) / 2^32 exactly, so
// u - 1 < Q <=> r < 2^32 Q + 2^32 - 1 <=> r < ceil(2^32 Q) + 2^32 - 1 (r is an integer;
// 2^32 Q is exact, a power-of-two scaling). Shifted by 2^31 and clamped to int32 (at the
// low end every r passes, at the high end ceil(2^32 Q) <= 0 already bounds it), all exact
// in binary64. So the integer test is the binary64 gate itself, not an approximation.
inline std::int32_t gate_floor(double best, double w) {
  const double q = (best * w) * (1.0 + 0x1p-50);
  const double t = std::ceil(q * 0x1p32) + 2147483647.0;
  return static_cast<std::int32_t>(std::max(t, -2147483648.0));
}

// Everything the kernel needs: built once per BatchPlacer (src/core/kernel_plan.cpp).
struct KernelPlan {
  TrieProgram program;
  bool fmix = true;       // fnv1a-fmix (else raw fnv1a); the same in every view
  bool weighted = false;  // rank by ln(u)/w in binary64 (else by r as unsigned)
  bool distinct = false;  // select by domain representatives (every view's tables filled)
  // Contract §9: some view has a non-zero cut. A pair whose r is below its node's cut
  // scores the lowest value (one compare and a select or max per pair); a key whose last
  // choice is that lowest value (fewer than R nodes or domains cleared, or one that cleared
  // has r = 0) has kAbsent as its first choice, and the caller places it with the reference.
  bool cuts = false;
  std::uint32_t select = 1;         // the largest of the views' select
  std::uint32_t list_leaves[3] = {};  // leaves offered to each list
  std::uint32_t list_first[3] = {};   // the first of them (program node), when any
  std::vector<KernelView> views;    // 1 (run_batch) or 2 (run_pair_batch)
};

// Where a kernel writes one view's choices: key i's j-th choice (j < the view's select)
// to nodes[i * stride + j] and, when rank is not null, its rank value to
// rank[i * stride + j]: r as a double (unweighted) or ln(u)/w (weighted, bit-identical to
// det::weighted_key).
struct KernelOutput {
  std::uint32_t* nodes = nullptr;
  double* rank = nullptr;
  std::size_t stride = 1;
};

// Runs a one-view plan on n keys whose FNV-1a states after seed ‖ key are states[0..n).
// Returns how many keys it left undecided (kAbsent first choice; plans with cuts only).
std::size_t run_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
                      const KernelOutput& out);

// Runs a two-view plan (one walk of the union trie per key): out[v] gets view v's choices.
// Returns how many (key, view) choices it left undecided, as run_batch.
std::size_t run_pair_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
                           const KernelOutput out[2]);

// FNV-1a states after seed ‖ key for keys [lo, hi) of a KeyBatch-like layout: key i is
// data[off[i], off[i + 1]); `data_size` bytes of data are readable (the kernel gathers
// whole 4-byte words and keeps every read inside it). out[i - lo] = FNV-continue(seed_state,
// key i). Keys in lanes: a vector of keys is hashed with gathers of 4-byte words.
void key_states(std::uint32_t seed_state, const char* data, const std::uint64_t* off,
                std::size_t data_size, std::size_t lo, std::size_t hi, std::uint32_t* out);

// The lines reader's byte scan (kernels/line_scan.cc): clears bits[0, ceil(n / 64)) and
// sets bit j % 64 of bits[j / 64] for every text[j] == '\n', j < n.
void lf_bits(const char* text, std::size_t n, std::uint64_t* bits);

// The Highway target bit that the kernels dispatch to right now.
std::int64_t dispatched_target();

}  // namespace hrw::kernels
