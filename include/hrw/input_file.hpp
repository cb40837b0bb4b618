// How every input file is opened (keys, placements, cluster views): one rule for FIFOs
// (docs/errors.md, "Inputs"), so that no input can block for ever.
#pragma once
#include <string>

namespace hrw {

// How long an input FIFO may wait for its first writer.
inline constexpr int kFifoWaitSeconds = 5;

struct OpenedInput {
  int fd = -1;           // blocking; the caller closes it
  bool fifo = false;
  bool regular = false;
  unsigned long long size = 0;  // regular files: st_size
  std::string first;     // bytes already read while waiting for a FIFO's writer
};

// Opens `path` for reading (`name` in messages). A FIFO is read as a stream once a writer
// has opened it; when none opens it within kFifoWaitSeconds it is an InputError
// "NAME: no writer opened the FIFO within 5 s". A writer that opened it and closed it
// without writing gives an empty input. InputError "NAME: cannot open: ..." and
// "NAME: cannot read: is a directory" otherwise.
OpenedInput open_input(const std::string& path, const std::string& name);

}  // namespace hrw
