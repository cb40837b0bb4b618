#include "hrw/thread_pool.hpp"

#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "hrw/placement.hpp"

namespace hrw::cli {

namespace {

// The ids of this process's threads (none when /proc is not there).
std::vector<pid_t> thread_ids() {
  std::vector<pid_t> ids;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(dir))
      if (entry->d_name[0] != '.') ids.push_back(static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10)));
    ::closedir(dir);
  }
  return ids;
}

}  // namespace

// Gives the arena one empty task for a worker to take: asking for a worker makes oneTBB start
// its threads, and by the time one has taken the task it is running. Waits for that a
// bounded time, sleeping; if no worker comes, this thread runs the task.
// oneTBB makes its first worker on this thread, with every core (it gives its creator the
// process's cores for that), and Linux may queue the new thread on the core where the
// command's thread is busy, where it waited up to 3 ms for a scheduler tick while the
// other core idled (bench/PLAN.md, "The first worker queued behind the command's thread").
// So when `start` was narrowed, the threads that appear meanwhile (oneTBB's) are held on
// the other cores until the task is taken, then given the process's cores back.
void ThreadPool::start_workers(const Start& start) {
  start.arena->initialize();
  const std::vector<pid_t> before = start.narrowed ? thread_ids() : std::vector<pid_t>{};
  tbb::task_group group;
  std::atomic<bool> taken{false};
  start.arena->execute([&] { group.run([&] { taken.store(true); }); });
  std::vector<pid_t> held;
  if (start.narrowed)
    for (pid_t id : thread_ids())
      if (std::find(before.begin(), before.end(), id) == before.end() &&
          ::sched_setaffinity(id, sizeof start.others, &start.others) == 0)
        held.push_back(id);
  constexpr auto kPoll = std::chrono::microseconds(100);
  constexpr int kPolls = 100;  // 10 ms; a worker starts in 1-4 ms on the VMs measured
  for (int i = 0; i < kPolls && !taken.load(); ++i) std::this_thread::sleep_for(kPoll);
  for (pid_t id : held) ::sched_setaffinity(id, sizeof start.cores, &start.cores);
  start.arena->execute([&] { group.wait(); });
}

// Linux queues a new thread on the core of the thread that makes it, and the command's
// thread goes on working there: the starter then waited for the scheduler's next tick
// (1.9 ms median here, bench/PLAN.md "A new thread waits for its creator's core"). Made
// allowed only the other cores, it begins on an idle one at once, then takes every core
// back before it calls oneTBB, so that nothing oneTBB does on it sees fewer cores.
void* ThreadPool::run_start(void* arg) {
  const Start& start = *static_cast<const Start*>(arg);
  if (start.narrowed) ::pthread_setaffinity_np(::pthread_self(), sizeof start.cores, &start.cores);
  start_workers(start);
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
    start_.others = start_.cores;
    const int here = ::sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &start_.others);
    start_.narrowed = CPU_COUNT(&start_.others) > 0 &&
                      ::pthread_attr_setaffinity_np(&narrowed, sizeof start_.others, &start_.others) == 0;
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
