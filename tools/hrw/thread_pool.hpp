// The threads a command runs on: how many oneTBB may start, and starting them early.
#pragma once
#include <pthread.h>
#include <sched.h>

#include <optional>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

namespace hrw::cli {

// For the run's lifetime, lets oneTBB start `threads` workers even beyond the core count
// (the library clamps its arenas to what oneTBB allows, so without this a request beyond
// the cores would get the cores), and starts those workers now, in the background, unless
// the run is to use one thread: oneTBB then has them ready when the command's first
// parallel step begins instead of starting them inside it (bench/PLAN.md, "oneTBB's
// workers started while the command reads its views"). 0: every core. The arena the start
// used lives as long as this object: it keeps oneTBB, and so its workers, up until the
// command's own arenas take them (with no arena left oneTBB would end its workers).
// The thread that starts them is made to begin on another core than the command's
// (thread_pool.cpp), and holds the worker oneTBB makes there on those cores until it runs;
// when no thread can be made, the command's first arena starts them.
class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();  // lets the start finish when the run ended first (its wait for a worker: 10 ms at most)
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

 private:
  // What the starting thread needs: the arena, the process's cores (which it takes back
  // once it runs, and gives back to the worker once that runs), and the others.
  struct Start {
    tbb::task_arena* arena = nullptr;
    cpu_set_t cores{};
    cpu_set_t others{};     // cores without the command thread's
    bool narrowed = false;  // made to begin on `others` only
  };

  std::optional<tbb::global_control> control_;
  std::optional<tbb::task_arena> arena_;  // outlives the starter, which uses it
  Start start_;
  std::optional<pthread_t> starter_;

  static void* run_start(void* arg);
  static void start_workers(const Start& start);
};

}  // namespace hrw::cli
