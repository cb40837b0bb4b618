// The outputs of one run, checked together before any input is read: each path must be
// writable as AtomicFile writes it (not empty, not a folder, not ending in '/'), and no two
// outputs may be the same file ("-", /dev/stdout and the file stdout is redirected to are
// all stdout). A folder output (plan --out DIR) is the folder its files go in.
#pragma once
#include <string>
#include <vector>

namespace hrw {

struct NamedOutput {
  std::string what;     // how the caller names it in messages (e.g. a flag)
  std::string path;     // "-" is stdout
  bool folder = false;  // a folder the run creates and writes into
};

// Throws InputError "WHAT: PATH: reason" for the first output that breaks a rule.
void check_outputs(const std::vector<NamedOutput>& outputs);

}  // namespace hrw
