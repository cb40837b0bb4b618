// Registration entry points of hrw_bench's benchmark families (see bench/README.md).
#pragma once

namespace hrw::bench {

// mulbound/AVX512/vpmulld/chainsC, mulbound/AVX2/vpmulld/chainsC (lane-multiplies/s) and
// pairbound/AVX512/fnv1-fmix-argmax/chainsC (the op mix of one pair, pair-scores/s).
void register_mulbound_benchmarks();

// read/lines/user-keys/10M: the lines reader alone (keys/s, bytes/s), docs/performance.md,
// "Reading keys".
void register_read_benchmarks();

// place/<TARGET>/fmix/<w>/R1/t1/{tree-10x10x100,prefix}/10000: hierarchical vs flat (bench_tree.cpp).
void register_tree_benchmarks();

}  // namespace hrw::bench
