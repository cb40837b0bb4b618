#include "hrw/thread_pool.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "hrw/placement.hpp"

namespace hrw::cli {

namespace {

// Gives `arena` one empty task for a worker to take: asking for a worker makes oneTBB start
// its threads, and by the time one has taken the task it is running. Waits for that a
// bounded time, sleeping; if no worker comes, this thread runs the task.
void start_workers(tbb::task_arena& arena) {
  arena.initialize();
  tbb::task_group group;
  std::atomic<bool> taken{false};
  arena.execute([&] { group.run([&] { taken.store(true); }); });
  constexpr auto kPoll = std::chrono::microseconds(100);
  constexpr int kPolls = 100;  // 10 ms; a worker starts in 1-4 ms on the VMs measured
  for (int i = 0; i < kPolls && !taken.load(); ++i) std::this_thread::sleep_for(kPoll);
  arena.execute([&] { group.wait(); });
}

}  // namespace

// Linux queues a new thread on the core of the thread that makes it, and the command's
// thread goes on working there: the starter then waited for the scheduler's next tick
// (1.9 ms median here, bench/PLAN.md "A new thread waits for its creator's core"). Made
// allowed only the other cores, it begins on an idle one at once, then takes every core
// back before it calls oneTBB, so that nothing oneTBB does on it sees fewer cores.
void* ThreadPool::run_start(void* arg) {
  const Start& start = *static_cast<const Start*>(arg);
  if (start.narrowed) ::pthread_setaffinity_np(::pthread_self(), sizeof start.cores, &start.cores);
  start_workers(*start.arena);
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
  start_.arena = &*arena_;
  pthread_attr_t narrowed;
  ::pthread_attr_init(&narrowed);
  // More than CPU_SETSIZE cores: the call fails, and the starter begins wherever Linux puts it.
  if (::pthread_getaffinity_np(::pthread_self(), sizeof start_.cores, &start_.cores) == 0) {
    cpu_set_t others = start_.cores;
    const int here = ::sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
    start_.narrowed = CPU_COUNT(&others) > 0 && ::pthread_attr_setaffinity_np(&narrowed, sizeof others, &others) == 0;
  }
  pthread_t thread;
  int failed = ::pthread_create(&thread, &narrowed, run_start, &start_);
  ::pthread_attr_destroy(&narrowed);
  if (failed && start_.narrowed) {
    start_.narrowed = false;
    failed = ::pthread_create(&thread, nullptr, run_start, &start_);
  }
  if (!failed) starter_ = thread;
}

ThreadPool::~ThreadPool() {
  if (starter_) ::pthread_join(*starter_, nullptr);
}

}  // namespace hrw::cli
