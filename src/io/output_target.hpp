// What an output path names, decided once for AtomicFile and the output checks alike.
#pragma once
#include <string>

namespace hrw {

struct OutputTarget {
  enum class Kind { kMissing, kRegular, kStreamed, kFolder };
  Kind kind = Kind::kMissing;
  std::string path;  // symlinks followed: what a rename would replace
};

// "-" and paths through /proc (/dev/stdout, /dev/fd/N) are streamed; so are character
// devices, FIFOs and sockets. Throws InputError "PATH: ..." for an empty path, a path ending
// in '/', a symlink loop or a folder that cannot be searched.
OutputTarget resolve_output(const std::string& path);

// A path through /proc or /dev/fd (/dev/stdout resolves to one): an open file of this
// process, whatever it is.
bool through_proc(const std::string& path);

// PATH for a message: "stdout" for "-".
std::string output_name(const std::string& path);

}  // namespace hrw
