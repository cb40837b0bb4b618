// The process's malloc policy: the CLI owns the process, the library does not touch it.
#pragma once

namespace hrw::cli {

// Puts the first 32 MiB of glibc's heap on transparent huge pages (when the kernel offers
// them) and serves every thread from that one heap, so that a bulk command's buffers
// (key batches, read buffers, rows) cost a few huge-page faults instead of hundreds of
// 4 KiB first-touch faults. Call first thing
// in main; does nothing where it cannot apply (another allocator, a sanitizer, no brk
// heap). Never fails.
void use_huge_page_heap() noexcept;

}  // namespace hrw::cli
