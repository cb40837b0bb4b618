#include "hrw/thread_pool.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "hrw/placement.hpp"

namespace hrw::cli {

// Gives the arena one empty task for a worker to take: asking for a worker makes oneTBB start
// its threads, and by the time one has taken the task it is running. Waits for that a
// bounded time, sleeping; if no worker comes, this thread runs the task.
void* ThreadPool::run_start(void* arg) {
  tbb::task_arena& arena = *static_cast<tbb::task_arena*>(arg);
  arena.initialize();
  tbb::task_group group;
  std::atomic<bool> taken{false};
  arena.execute([&] { group.run([&] { taken.store(true); }); });
  constexpr auto kPoll = std::chrono::microseconds(100);
  constexpr int kPolls = 100;  // 10 ms: a worker starts within a few milliseconds
  for (int i = 0; i < kPolls && !taken.load(); ++i) std::this_thread::sleep_for(kPoll);
  arena.execute([&] { group.wait(); });
  return nullptr;
}

ThreadPool::ThreadPool(unsigned threads) {
  if (threads > std::thread::hardware_concurrency())
    control_.emplace(tbb::global_control::max_allowed_parallelism, threads);
  // 0: the arena the library then makes has oneTBB's default concurrency (the cores this
  // process may run on).
  const int workers = threads == 0 ? tbb::info::default_concurrency() : static_cast<int>(worker_threads(threads));
  if (workers <= 1) return;
  arena_.emplace(workers);
  pthread_t thread;
  if (::pthread_create(&thread, nullptr, run_start, &*arena_) == 0) starter_ = thread;
}

ThreadPool::~ThreadPool() {
  if (starter_) ::pthread_join(*starter_, nullptr);
}

}  // namespace hrw::cli
