// read/lines: keys per second of the lines reader alone (KeySource::next into one reused
// chunk, as the plan's read step does), on a file of 10^7 `hrw sample`-style keys
// ("user:N") written once to a temp file and read from the page cache.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "bench.hpp"
#include "hrw/key_source.hpp"

namespace hrw::bench {
namespace {

constexpr std::size_t kLines = 10'000'000;

// The key file, created on first use and removed at exit.
class SampleKeyFile {
 public:
  SampleKeyFile() {
    char name[] = "/tmp/hrw-bench-keys-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) throw std::runtime_error("read/lines: cannot create a temp file");
    path_ = name;
    std::FILE* f = ::fdopen(fd, "w");
    std::string text;
    for (std::size_t i = 0; i < kLines; ++i) text += "user:" + std::to_string(i) + "\n";
    bytes_ = text.size();
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0)
      throw std::runtime_error("read/lines: cannot write " + path_);
  }
  ~SampleKeyFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::string path_;
  std::size_t bytes_ = 0;
};

const SampleKeyFile& sample_key_file() {
  static const SampleKeyFile file;
  return file;
}

void read_lines(benchmark::State& state) {
  const SampleKeyFile& file = sample_key_file();
  KeyChunk chunk;
  std::size_t keys = 0;
  for (auto _ : state) {
    KeySource source(file.path(), KeyFormat::lines);
    while (source.next(chunk, kDefaultChunkKeys)) keys += chunk.size();
  }
  if (keys != kLines * state.iterations()) state.SkipWithError("read/lines: wrong key count");
  state.SetItemsProcessed(static_cast<std::int64_t>(keys));
  state.SetBytesProcessed(static_cast<std::int64_t>(file.bytes() * state.iterations()));
}

}  // namespace

void register_read_benchmarks() {
  benchmark::RegisterBenchmark("read/lines/user-keys/10M", read_lines)
      ->Unit(benchmark::kMillisecond)
      ->MinTime(1.0);
}

}  // namespace hrw::bench
