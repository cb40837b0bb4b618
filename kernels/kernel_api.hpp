// Internal interface between the batch engine (src/placement.cpp) and the Highway kernels
// (kernels/hrw_kernels.cc). Not installed: include/hrw/ holds the public API.
//
// The node ids of a view are compiled into a flat "trie program" (src/node_trie.cpp): a
// preorder walk of the compressed trie of the id-sorted ids, so a shared prefix such as
// "node-0" is hashed once per key instead of once per node. The kernel runs the program on
// vectors of FNV-1a states (one key per lane):
//   kExtend: slot[dst] = FNV-continue(slot[src], bytes)
//   kLeaf:   h = FNV-continue(slot[src], bytes) is the FNV-1a of seed ‖ key ‖ id(node);
//            finish it (fmix32 / identity, weighted key) and offer it to the selection.
// Slot 0 holds the state after seed ‖ key. Leaves appear in node-index order (preorder of
// a trie of memcmp-sorted ids = memcmp order), which is the tie order of the contract, so
// "replace only when strictly better" resolves ties for free.
#pragma once
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
  std::uint32_t node = 0;    // kLeaf: node index
  std::uint32_t domain = 0;  // kLeaf with domains: the node's failure-domain number
  std::uint32_t first_in_domain = 0;  // kLeaf with domains: first node of its domain
};

struct TrieProgram {
  std::vector<Op> ops;
  std::vector<std::uint8_t> bytes;
  std::uint32_t slots = 1;   // stack slots used, slot 0 included
  std::uint32_t leaves = 0;  // = node count
};

// Largest replica count the kernels select in registers; larger R uses the reference.
inline constexpr std::uint32_t kMaxKernelReplicas = 8;

// Everything the kernel needs, built once per place() call.
struct KernelPlan {
  TrieProgram program;
  std::uint32_t nodes = 0;
  bool fmix = true;       // fnv1a-fmix (else raw fnv1a)
  bool weighted = false;  // rank by ln(u)/w in binary64 (else by r as unsigned)
  std::vector<double> weights;  // per node (weighted only)
  // Selection: the best `select` candidates per key, 1 <= select <= kMaxKernelReplicas.
  std::uint32_t select = 1;
  // Failure domains ("distinct LABEL"): each domain's best node is its representative,
  // and the best `select` representatives are chosen (ties by node index).
  bool distinct = false;
  std::uint32_t domain_count = 0;
};

// Runs the plan on n keys whose FNV-1a states after seed ‖ key are states[0..n).
// Writes key i's choices to nodes[i * stride + j] for j < plan.select and, when rank is
// not null, the matching rank value to rank[i * stride + j]: r as a double (unweighted)
// or ln(u)/w (weighted, bit-identical to det::weighted_key).
void run_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
               std::uint32_t* nodes, double* rank, std::size_t stride);

// FNV-1a states after seed ‖ key for keys [lo, hi) of a KeyBatch-like layout: key i is
// data[off[i], off[i + 1]); `data_size` bytes of data are readable (the kernel gathers
// whole 4-byte words and keeps every read inside it). out[i - lo] = FNV-continue(seed_state,
// key i). Keys in lanes: a vector of keys is hashed with gathers of 4-byte words.
void key_states(std::uint32_t seed_state, const char* data, const std::uint64_t* off,
                std::size_t data_size, std::size_t lo, std::size_t hi, std::uint32_t* out);

// The lines reader's byte scan (kernels/line_scan.cc): clears bits[0, ceil(n / 64)) and
// sets bit j % 64 of bits[j / 64] for every text[j] == '\n', j < n.
void lf_bits(const char* text, std::size_t n, std::uint64_t* bits);

// The Highway target bit that run_batch dispatches to right now.
std::int64_t dispatched_target();

}  // namespace hrw::kernels
