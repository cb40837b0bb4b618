// What belongs to the process, not the library: signal handling, stderr, exit codes.
#pragma once
#include <string_view>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::cli {

// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove every live temp file and exit
// 128+signal (130 for SIGINT). A signal ignored when hrw started (nohup) stays ignored. A
// signal that comes while outputs are being renamed into place waits for the renames:
// deferred_signal() then gives it and main exits with it.
void install_signal_cleanup();
int deferred_signal();

// Writes to stderr and ignores failure: an unwritable stderr has nowhere to be reported,
// and must not turn into an exception (or an abort while reporting another error).
void print_stderr(std::string_view text) noexcept;

// `message` as one line (errors.hpp): the CLI's messages and the library's reports agree.
using hrw::one_line;

template <typename... Args>
void eprint(fmt::format_string<Args...> format, Args&&... args) {
  print_stderr(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace hrw::cli
