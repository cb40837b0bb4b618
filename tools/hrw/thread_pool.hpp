// The threads a command runs on: how many oneTBB may start, and starting them early.
#pragma once
#include <pthread.h>

#include <optional>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

namespace hrw::cli {

// For the run's lifetime, lets oneTBB start `threads` workers even beyond the core count
// (the library clamps its arenas to what oneTBB allows, so without this a request beyond
// the cores would get the cores), and starts those workers now, on a thread of its own,
// unless the run is to use one thread: they are then ready when the command's first
// parallel step begins, instead of starting inside it while the views are read. 0: every
// core. The arena the start used lives as long as this object: it keeps oneTBB's workers
// up until the command's own arenas take them (with no arena left oneTBB would end them).
class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();  // lets the start finish when the run ended first (its wait for a worker: 10 ms at most)
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

 private:
  std::optional<tbb::global_control> control_;
  std::optional<tbb::task_arena> arena_;  // outlives the starter, which uses it
  std::optional<pthread_t> starter_;

  static void* run_start(void* arena);
};

}  // namespace hrw::cli
