// AtomicFile::reserve and write_at: pieces reserved in output order and written by several
// threads in any order make the file the pieces in order; write() appends after them; a
// streamed output (a FIFO, "-") cannot reserve.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <random>
#include <thread>

#include "cli_runner.hpp"
#include "hrw/atomic_file.hpp"

using hrw::AtomicFile;

TEST_CASE("pieces written at reserved places, by threads in any order, make the file in order",
          "[outputs][pieces]") {
  hrw::test::TempDir dir;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    const std::string path = dir.file("out-" + std::to_string(round) + ".csv");
    std::vector<std::string> pieces;
    std::string expected = "header\n";
    AtomicFile out(path);
    out.write("header\n");
    std::vector<std::uint64_t> offsets;
    for (int i = 0; i < 1 + round * 3; ++i) {
      // Sizes around the 1 MiB write buffer included, and empty pieces.
      const std::size_t size = rng() % 4 == 0 ? (std::size_t{1} << 20) + rng() % 5 : rng() % 3000;
      pieces.emplace_back(size, static_cast<char>('a' + i % 26));
      expected += pieces.back();
      offsets.push_back(out.reserve(size));
    }
    std::vector<std::size_t> order(pieces.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t j = static_cast<std::size_t>(t); j < order.size(); j += 3)
          out.write_at(offsets[order[j]], pieces[order[j]]);
      });
    for (auto& th : threads) th.join();
    out.write("tail\n");
    expected += "tail\n";
    CHECK(hrw::test::read_file(path).empty());  // nothing at the path before commit
    out.commit();
    CHECK(hrw::test::read_file(path) == expected);
  }
}

TEST_CASE("a streamed output refuses to reserve", "[outputs][pieces]") {
  hrw::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread drain([&] { (void)hrw::test::read_file(fifo); });
  {
    AtomicFile out(fifo);
    CHECK(out.streamed());
    CHECK_THROWS_AS(out.reserve(3), std::logic_error);
    out.commit();
  }
  drain.join();
}
