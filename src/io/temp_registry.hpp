// What AtomicFile and PlanFolder share: the table of temp files and folders a signal
// handler removes (remove_temp_files_now), and the publishing state that makes a handler
// wait while outputs are renamed into place.
#pragma once
#include <string>

namespace hrw::io {

// A temp folder removed, with everything in it, by remove_temp_files_now(). Returns the
// slot to unregister.
int register_temp_tree(const std::string& path);
void unregister_temp_tree(int& slot);

// Removes `path` and everything under it (symlinks are removed, never followed).
// Async-signal-safe; errors are ignored (what cannot be removed stays).
void remove_tree(const char* path) noexcept;

// Enters the publishing state (signal handlers then defer instead of removing temp files);
// throws std::runtime_error when a handler is already removing them.
void begin_publishing();
void end_publishing() noexcept;

// PID-named temp entries of runs that no longer exist: is `name` PREFIX + PID + '-' ... with
// PID dead (not this process, kill(PID, 0) fails with ESRCH)?
bool stale_temp_name(const std::string& name, const std::string& prefix);

}  // namespace hrw::io
