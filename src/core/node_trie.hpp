// Compiles the id-sorted node ids of a view into the flat trie program of kernel_api.hpp.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernel_api.hpp"

namespace hrw::kernels {

// `ids` must be sorted in memcmp order and unique (as ClusterView stores them). Leaves
// come out in index order: the i-th kLeaf op is node i, offered to list 0.
TrieProgram build_trie_program(const std::vector<std::string_view>& ids);

// Scalar interpreter of a program, for tests: the FNV-1a state of state ‖ id for every node.
std::vector<std::uint32_t> run_trie_scalar(const TrieProgram& program, std::uint32_t state);

}  // namespace hrw::kernels
