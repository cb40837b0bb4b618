// KeyBatch: contiguous keys, copies and moves, and the bulk Appender the lines reader uses.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "hrw/key_batch.hpp"

using hrw::KeyBatch;

namespace {

std::vector<std::string> contents(const KeyBatch& batch) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < batch.size(); ++i) out.emplace_back(batch[i]);
  return out;
}

// Keys are back to back: the kernels read them through data() and offsets().
void require_contiguous(const KeyBatch& batch) {
  REQUIRE(batch.offsets()[0] == 0);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    REQUIRE(batch.offsets()[i] <= batch.offsets()[i + 1]);
    REQUIRE(batch[i].data() == batch.data() + batch.offsets()[i]);
  }
  REQUIRE(batch.byte_size() == (batch.empty() ? 0 : batch.offsets()[batch.size()]));
}

std::vector<std::string> random_keys(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::string> keys(n);
  for (auto& k : keys) {
    k.resize(rng() % 3 == 0 ? rng() % 70 : rng() % 17);
    for (auto& c : k) c = static_cast<char>(rng());
  }
  return keys;
}

}  // namespace

TEST_CASE("KeyBatch: add, copy, move and reuse keep every key", "[key_batch]") {
  std::mt19937_64 rng(7);
  const auto keys = random_keys(rng, 5000);
  KeyBatch batch;
  CHECK(batch.empty());
  CHECK(batch.byte_size() == 0);
  for (auto& k : keys) batch.add(k);
  CHECK(contents(batch) == keys);
  require_contiguous(batch);

  KeyBatch copy(batch);
  CHECK(contents(copy) == keys);
  CHECK(copy.data() != batch.data());
  copy = copy;  // self-assignment is harmless
  CHECK(contents(copy) == keys);

  KeyBatch moved(std::move(batch));
  CHECK(contents(moved) == keys);
  CHECK(batch.empty());  // NOLINT: a moved-from batch is empty and reusable
  batch.add("again");
  CHECK(contents(batch) == std::vector<std::string>{"again"});

  moved.clear();
  CHECK(moved.empty());
  moved.add("");
  moved.add("x");
  CHECK(contents(moved) == std::vector<std::string>{"", "x"});
}

TEST_CASE("KeyBatch::Appender writes the same batch as add", "[key_batch]") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    const auto keys = random_keys(rng, rng() % 400);
    // The source keeps kCopySlack readable bytes after every key, as the read buffer does.
    std::string source;
    for (auto& k : keys) source += k;
    source.append(KeyBatch::kCopySlack, '#');

    KeyBatch by_add, by_appender;
    by_add.add("first");
    by_appender.add("first");
    std::size_t bytes = 0;
    for (auto& k : keys) bytes += k.size();
    by_appender.reserve(1 + keys.size(), by_appender.byte_size() + bytes);
    {
      KeyBatch::Appender out(by_appender);
      std::size_t at = 0;
      for (auto& k : keys) {
        by_add.add(k);
        out.append(source.data() + at, k.size());
        at += k.size();
      }
      CHECK(out.size() == 1 + keys.size());
    }
    CHECK(contents(by_appender) == contents(by_add));
    require_contiguous(by_appender);
  }
}
