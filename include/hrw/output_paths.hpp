// The outputs of one run, checked together before any input is read: each path must be
// writable as AtomicFile writes it (not empty, not a folder, not ending in '/'), no two
// outputs may be the same file ("-", /dev/stdout and the file stdout is redirected to are
// all stdout), and no output may be one of the run's inputs (docs/errors.md, "Outputs").
// A folder output (plan --out DIR) is the folder its files go in; it is replaced as a
// whole, so no input may lie inside it either.
#pragma once
#include <string>
#include <vector>

namespace hrw {

struct NamedOutput {
  std::string what;     // how the caller names it in messages (e.g. a flag)
  std::string path;     // "-" is stdout
  bool folder = false;  // a folder the run creates and writes into
};

struct NamedInput {
  std::string what;  // how the caller names it in messages (e.g. a flag)
  std::string path;  // "-" is stdin
};

// Throws InputError "WHAT: PATH: reason" for the first output that breaks a rule, and
// "OUT and IN name the same file \"PATH\"" for an output that is an input (same device and
// inode, symlinks followed, hard links included; stdin and stdout count when they are
// regular files; a path that does not exist cannot be an input), or
// "IN \"PATH\" is inside the OUT folder \"DIR\"" for an input inside a folder output.
void check_outputs(const std::vector<NamedOutput>& outputs, const std::vector<NamedInput>& inputs = {});

}  // namespace hrw
