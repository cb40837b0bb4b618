#include "hrw/heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace hrw::cli {

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::size_t kHeapPad = std::size_t{16} << 20;
}  // namespace

void use_huge_page_heap() noexcept {
  // One arena: a worker thread's buffers come from the same huge-page heap. The bulk
  // pipeline's hot path allocates nothing (its buffers are reused slot by slot; about a
  // hundred mallocs in a 10^7-key plan, all while its buffers first grow), so a shared
  // arena costs no contention.
  mallopt(M_ARENA_MAX, 1);
  // Blocks up to 64 MiB from the heap, not mapped one by one in 4 KiB pages; freed memory
  // kept (a chunk buffer freed and allocated again is not faulted in again); the heap
  // grown 16 MiB beyond each request, so that the first growth (below, the part advised)
  // spans whole 2 MiB pages.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  mallopt(M_TOP_PAD, static_cast<int>(kHeapPad));
  // Grow the heap now (the block goes back to its free top) and advise what it spans.
  // brk memory only: under another allocator (a sanitizer's) the block is not below the
  // program break, and nothing is advised.
  void* block = std::malloc(kHeapPad);
  if (!block) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const auto brk = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  std::free(block);
  if (brk <= begin || brk - begin > 4 * kHeapPad) return;
  const std::uintptr_t lo = (begin + kHugePage - 1) & ~(kHugePage - 1), hi = brk & ~(kHugePage - 1);
  if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice: failure changes nothing
}

}  // namespace hrw::cli
