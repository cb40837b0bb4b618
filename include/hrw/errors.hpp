// Error types. The CLI maps InputError to exit code 2 (the user can fix it) and every other
// exception to exit code 1 (a bug or an environment failure).
#pragma once
#include <stdexcept>
#include <string>

namespace hrw {

// Bad input: a malformed file, an invalid view, an impossible request. The message names
// the file and line, or the node and field, so that one line on stderr is enough.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output could not be written (a full disk, a closed pipe): not the user's input, not a
// bug either. The CLI prints the message as it is and exits 1.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hrw
