// Error types. The CLI maps InputError to exit code 2 (the user can fix it) and every other
// exception to exit code 1 (a bug or an environment failure).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace hrw {

// A setting of a request that an error is about. The library names the concept ("replica
// count"); a front end that took the setting from a flag names the flag instead ("--replicas"),
// the way a parser includes the flag name: the library never knows its callers' flags.
enum class Setting {
  none,
  replica_count,
  distinct_label,
  node_list,
  weight_list,
  key_format,
  keys_file,
  virtual_nodes,
  maglev_size,
  load_factor,
};

// The concept's name as library messages use it ("replica count", "weight list", ...).
std::string_view setting_name(Setting setting);

// Bad input: a malformed file, an invalid view, an impossible request. The message names
// the file and line, or the node and field, or the setting, so one line is enough.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // what() is setting_name(setting) + detail; detail starts with its own separator
  // (" must be at least 1", ": 3 weights for 2 nodes").
  InputError(Setting setting, std::string detail);

  Setting setting() const { return setting_; }
  const std::string& detail() const { return detail_; }

 private:
  Setting setting_ = Setting::none;
  std::string detail_;
};

}  // namespace hrw
