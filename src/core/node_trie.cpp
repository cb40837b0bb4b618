// Compressed-trie compilation of the node ids (see kernel_api.hpp for the program format).
#include "node_trie.hpp"

#include <algorithm>
#include <stdexcept>

#include "hrw/hash.hpp"

namespace hrw::kernels {
namespace {

struct Builder {
  const std::vector<std::string_view>& ids;
  TrieProgram out;

  std::uint32_t add_bytes(std::string_view s) {
    const auto offset = static_cast<std::uint32_t>(out.bytes.size());
    out.bytes.insert(out.bytes.end(), s.begin(), s.end());
    return offset;
  }

  void leaf(std::uint32_t src, std::string_view rest, std::uint32_t node) {
    if (node != out.leaves) throw std::logic_error("trie program: leaves out of index order");
    Op op;
    op.kind = kLeaf;
    op.src = src;
    op.length = static_cast<std::uint32_t>(rest.size());
    op.offset = add_bytes(rest);
    op.node = node;
    out.ops.push_back(op);
    ++out.leaves;
  }

  // ids[lo, hi) share their first `p` bytes, whose state is in `slot`.
  void group(std::size_t lo, std::size_t hi, std::size_t p, std::uint32_t slot) {
    if (hi - lo == 1) {
      leaf(slot, ids[lo].substr(p), static_cast<std::uint32_t>(lo));
      return;
    }
    // Sorted ids: the common prefix of the group is that of its first and last id.
    const std::string_view first = ids[lo], last = ids[hi - 1];
    std::size_t l = p;
    const std::size_t limit = std::min(first.size(), last.size());
    while (l < limit && first[l] == last[l]) ++l;
    if (l > p) {
      Op op;
      op.kind = kExtend;
      op.src = slot;
      op.dst = slot + 1;
      op.length = static_cast<std::uint32_t>(l - p);
      op.offset = add_bytes(first.substr(p, l - p));
      out.ops.push_back(op);
      slot = slot + 1;
      out.slots = std::max(out.slots, slot + 1);
    }
    // An id equal to the shared prefix sorts first and is its own leaf (no more bytes).
    if (ids[lo].size() == l) {
      leaf(slot, {}, static_cast<std::uint32_t>(lo));
      ++lo;
    }
    // The rest splits by the byte at position l, in ascending (memcmp) order.
    while (lo < hi) {
      std::size_t end = lo + 1;
      while (end < hi && ids[end][l] == ids[lo][l]) ++end;
      group(lo, end, l, slot);
      lo = end;
    }
  }
};

}  // namespace

TrieProgram build_trie_program(const std::vector<std::string_view>& ids) {
  Builder b{ids, {}};
  if (!ids.empty()) b.group(0, ids.size(), 0, 0);
  return std::move(b.out);
}

std::vector<std::uint32_t> run_trie_scalar(const TrieProgram& program, std::uint32_t state) {
  std::vector<std::uint32_t> slots(program.slots, 0);
  std::vector<std::uint32_t> out(program.leaves, 0);
  slots[0] = state;
  for (const Op& op : program.ops) {
    std::string_view bytes(reinterpret_cast<const char*>(program.bytes.data()) + op.offset,
                           op.length);
    const std::uint32_t h = fnv1a32_continue(slots[op.src], bytes);
    if (op.kind == kExtend)
      slots[op.dst] = h;
    else
      out[op.node] = h;
  }
  return out;
}

}  // namespace hrw::kernels
