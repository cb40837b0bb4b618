#include "hrw/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "hrw/atomic_file.hpp"

namespace hrw::cli {

namespace {

volatile sig_atomic_t g_deferred = 0;

extern "C" void on_signal(int sig) {
  if (!remove_temp_files_now()) {
    g_deferred = sig;
    return;
  }
  ::_exit(128 + sig);
}

}  // namespace

void install_signal_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

int deferred_signal() { return g_deferred; }

void print_stderr(std::string_view text) noexcept {
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  std::clearerr(stderr);
}

}  // namespace hrw::cli
