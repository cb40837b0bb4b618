// Error types. The CLI maps InputError to exit code 2 (the user can fix it) and every other
// exception to exit code 1 (a bug or an environment failure).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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
  hierarchy_list,
  partial_results,
  // A plan's settings (docs/plan.md, "Options that go together").
  batch_size,
  max_moves_per_node,
  max_bytes_per_node,
  node_bandwidth,
  max_moved_fraction,
  cap_by,
  step_versions,  // the first intermediate step view's version (docs/plan.md, "Staged plans")
  chart_file,
  placement_file,
  thread_count,
  ignored_columns,  // CSV header columns to skip (docs/errors.md, "CSV columns")
  single_copy,      // a plan to one replica per key asked for (docs/plan.md, "Losing replicas")
};

// The concept's name as library messages use it ("replica count", "weight list", ...).
std::string_view setting_name(Setting setting);

// What the caller may change to make a refused request succeed, as a value a front end
// words in its own terms (the CLI: "use --partial"; Python: "pass partial=True").
enum class Hint {
  none,
  accept_partial,  // ask for partial results: fewer failure domains than replicas (contract §3)
};

// The library's wording of a hint: " (ask for partial results to accept fewer)"; "" for none.
std::string_view hint_text(Hint hint);

// Bad input: a malformed file, an invalid view, an impossible request. The message names
// the file and line, or the node and field, or the setting, so one line is enough.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // what() is setting_name(setting) + detail + hint_text(hint); detail starts with its own
  // separator (" must be at least 1", ": 3 weights for 2 nodes").
  InputError(Setting setting, std::string detail, Hint hint = Hint::none);
  // An error about two or more settings ("batch size excludes max moves per node"): each
  // "{}" of `detail` stands for one of `mentioned`, in order, named the way `setting` is;
  // they come after any text taken from the input.
  InputError(Setting setting, std::string detail, std::vector<Setting> mentioned);

  Setting setting() const { return setting_; }
  const std::string& detail() const { return detail_; }
  Hint hint() const { return hint_; }
  const std::vector<Setting>& mentioned() const { return mentioned_; }
  // The message with every setting named by `name` (a front end's flag or keyword; an
  // empty name falls back to setting_name), without the hint.
  template <class Name>
  std::string worded(Name&& name) const {
    auto named = [&](Setting s) {
      const std::string_view n = name(s);
      return std::string(n.empty() ? setting_name(s) : n);
    };
    return named(setting_) + fill(detail_, mentioned_, named);
  }

 private:
  // Filled from the end: the placeholders follow any text from the input (a file name
  // holding "{}" stays as it is).
  template <class Named>
  static std::string fill(const std::string& detail, const std::vector<Setting>& mentioned, Named&& named) {
    std::string out = detail;
    std::size_t before = out.size();
    for (auto s = mentioned.rbegin(); s != mentioned.rend() && before > 0; ++s) {
      const std::size_t at = out.rfind("{}", before - 1);
      if (at == std::string::npos) break;
      out.replace(at, 2, named(*s));
      before = at;
    }
    return out;
  }

  Setting setting_ = Setting::none;
  std::string detail_;
  Hint hint_ = Hint::none;
  std::vector<Setting> mentioned_;
};

// How every message shows bytes from the input (an id, a key, a cell, an option value):
// in double quotes, with \" \\ \n \r \t and \xHH for other control bytes and for bytes
// that are not UTF-8, so a message stays one printable line whatever the bytes; cut after
// `max_bytes` with `..." (N bytes)` so a 1 MB cell does not give a 1 MB message.
std::string quote_for_message(std::string_view bytes, std::size_t max_bytes = 64);

// `message` as one line: any control byte left in it (a path holding a newline) escaped
// as \xHH; every other byte as it is.
std::string one_line(std::string_view message);

// An output could not be written (a full disk, a closed pipe): not the user's input, not a
// bug either. The CLI prints the message as it is and exits 1.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hrw
