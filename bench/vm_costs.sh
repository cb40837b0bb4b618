#!/usr/bin/env bash
# What this machine charges outside the kernels, behind the design choices and the fixed
# cost quoted in bench/PLAN.md:
#   - a first-touch page fault (64 MiB of fresh anonymous memory, one byte per 4 KiB page);
#   - mmap vs read(2) of a page-cached key file (one byte per page, then 1 MiB reads);
#   - starting a process (/bin/true), `hrw --help`, and a 1,000-key `hrw plan`.
#
#   bench/vm_costs.sh [HRW_BINARY]      (default build/hrw)
set -euo pipefail

HRW=${1:-build/hrw}
WORK=$(mktemp -d /tmp/hrw-vm-costs-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/probe.cpp" <<'EOF'
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int main(int, char** argv) {
  const size_t fresh = size_t{64} << 20;
  auto t = Clock::now();
  auto* p = static_cast<volatile char*>(
      mmap(nullptr, fresh, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  for (size_t i = 0; i < fresh; i += 4096) p[i] = 1;
  const double touch = ms_since(t);
  std::printf("first touch of 64 MiB: %.1f ms, %.2f us per 4 KiB page\n", touch,
              touch * 1000 / (fresh / 4096));

  const int fd = open(argv[1], O_RDONLY);
  struct stat st;
  fstat(fd, &st);
  const size_t n = static_cast<size_t>(st.st_size);
  unsigned long sum = 0;
  t = Clock::now();
  auto* m = static_cast<const char*>(mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0));
  madvise(const_cast<char*>(m), n, MADV_SEQUENTIAL);
  for (size_t i = 0; i < n; i += 4096) sum += static_cast<unsigned char>(m[i]);
  munmap(const_cast<char*>(m), n);
  const double mapped = ms_since(t);
  std::vector<char> buf(size_t{1} << 20);
  t = Clock::now();
  for (ssize_t r; (r = read(fd, buf.data(), buf.size())) > 0;)
    for (ssize_t i = 0; i < r; i += 4096) sum += static_cast<unsigned char>(buf[i]);
  const double copied = ms_since(t);
  std::printf("%.0f MB key file: mmap %.1f ms, read(2) %.1f ms (checksum %lu)\n", n / 1e6,
              mapped, copied, sum);
}
EOF
g++ -O2 -std=c++20 "$WORK/probe.cpp" -o "$WORK/probe"

"$HRW" sample --keys 10000000 --out "$WORK/sample" 2> /dev/null
head -1000 "$WORK/sample/keys.txt" > "$WORK/small.txt"
cat "$WORK/sample/keys.txt" > /dev/null  # page cache
"$WORK/probe" "$WORK/sample/keys.txt"

# Best of 9 wall times in ms, measured by the shell itself ($EPOCHREALTIME: no extra process).
best_ms() {
  local best=999999 s e ms
  for ((i = 0; i < 9; i++)); do
    s=$EPOCHREALTIME
    "$@" > /dev/null 2>&1
    e=$EPOCHREALTIME
    ms=$(echo "($e - $s) * 1000" | bc -l)
    if (($(echo "$ms < $best" | bc -l))); then best=$ms; fi
  done
  printf '%.1f' "$best"
}
echo "process start (/bin/true): $(best_ms /bin/true) ms"
echo "hrw --help: $(best_ms "$HRW" --help) ms"
echo "hrw plan, 1,000 keys: $(best_ms "$HRW" plan --from "$WORK/sample/from.json" \
  --to "$WORK/sample/to.json" --keys "$WORK/small.txt" --out "$WORK/plan") ms"
