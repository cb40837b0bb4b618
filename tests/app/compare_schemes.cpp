// Each alternative placement scheme of `hrw compare` against its published definition, on
// small cases checked by hand.
#include <catch2/catch.hpp>

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compare/bounded_caps.hpp"
#include "compare/crc16.hpp"
#include "compare/hash_ring.hpp"
#include "compare/jump_hash.hpp"
#include "compare/maglev_table.hpp"
#include "compare/placer.hpp"
#include "compare/slot_map.hpp"
#include "hrw/compare.hpp"
#include "hrw/errors.hpp"
#include "hrw/reference.hpp"

using namespace hrw::compare;

namespace {

NodeList ids(std::vector<std::string> list) {
  NodeList nodes;
  nodes.source = "test";
  nodes.ids = std::move(list);
  nodes.weights.assign(nodes.ids.size(), 1.0);
  return nodes;
}

hrw::KeyBatch keys_for_test(std::size_t n) { return sample_keys(n); }

std::vector<std::uint32_t> assign(Placer& placer, const hrw::KeyBatch& keys) {
  std::vector<std::uint32_t> owners;
  placer.assign(keys, owners);
  return owners;
}

}  // namespace

// ---- modulo ----

TEST_CASE("modulo: owner = XXH3(key) mod N, bucket i = i-th node", "[compare][modulo]") {
  auto placer = make_modulo();
  placer->build(numbered_nodes(7, "t"));
  const auto keys = keys_for_test(1000);
  const auto owners = assign(*placer, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    REQUIRE(owners[i] == XXH3_64bits(keys[i].data(), keys[i].size()) % 7);
}

// ---- jump ----

TEST_CASE("jump: published test vectors", "[compare][jump]") {
  // The vectors of the Go port by Damian Gryski (github.com/dgryski/go-jump, jump_test.go),
  // which implements the paper's C++ function verbatim.
  CHECK(jump_consistent_hash(1, 1) == 0);
  CHECK(jump_consistent_hash(42, 57) == 43);
  CHECK(jump_consistent_hash(0xDEAD10CC, 1) == 0);
  CHECK(jump_consistent_hash(0xDEAD10CC, 666) == 361);
  CHECK(jump_consistent_hash(256, 1024) == 520);
}

TEST_CASE("jump: hand-run cases", "[compare][jump]") {
  // key = 0: b = 0, key = 0 * C + 1 = 1, j = 1 * 2^31 / ((1 >> 33) + 1) = 2^31, which is
  // >= any 32-bit bucket count: key 0 stays in bucket 0 for every count.
  for (std::int32_t n : {1, 2, 10, 1000, 1 << 30}) CHECK(jump_consistent_hash(0, n) == 0);
  // One bucket: the loop runs once (j = 0 < 1), so every key is in bucket 0.
  for (std::uint64_t k : {1ull, 99ull, ~0ull}) CHECK(jump_consistent_hash(k, 1) == 0);
}

TEST_CASE("jump: growing N moves keys only to the new bucket", "[compare][jump]") {
  for (std::uint64_t k = 0; k < 20000; ++k) {
    const auto h = XXH3_64bits(&k, sizeof k);
    const auto a = jump_consistent_hash(h, 10), b = jump_consistent_hash(h, 11);
    REQUIRE((a == b || b == 10));
  }
}

TEST_CASE("jump: a change in the middle of the list cannot be expressed", "[compare][jump]") {
  auto placer = make_jump();
  placer->build(ids({"a", "b", "c"}));
  CHECK(placer->change_to(ids({"a", "b", "c", "d"})) == "");
  CHECK(placer->change_to(ids({"a", "b"})) == "");
  CHECK(placer->change_to(ids({"b", "c"})).find("cannot express") != std::string::npos);
}

// ---- ring ----

TEST_CASE("ring: clockwise successor with wrap-around", "[compare][ring]") {
  HashRing ring;
  ring.build_from_tokens({{300, 2}, {100, 0}, {200, 1}});
  CHECK(ring.token(ring.successor(0)).node == 0);
  CHECK(ring.token(ring.successor(100)).node == 0);  // a token at the hash owns it
  CHECK(ring.token(ring.successor(101)).node == 1);
  CHECK(ring.token(ring.successor(250)).node == 2);
  CHECK(ring.token(ring.successor(301)).node == 0);  // past the last token: wrap around
  CHECK(ring.token(ring.successor(~0ull)).node == 0);
  CHECK(ring.next(2) == 0);
}

TEST_CASE("ring: V tokens per node named ID#i, more with weight", "[compare][ring]") {
  HashRing ring;
  ring.build(ids({"a", "b"}), 100, false);
  REQUIRE(ring.size() == 200);
  std::set<std::uint64_t> positions;
  for (std::size_t i = 0; i < ring.size(); ++i) positions.insert(ring.token(i).position);
  CHECK(positions.count(XXH3_64bits("a#0", 3)) == 1);
  CHECK(positions.count(XXH3_64bits("b#99", 4)) == 1);
  CHECK(positions.count(XXH3_64bits("b#100", 5)) == 0);
  for (std::size_t i = 1; i < ring.size(); ++i)
    REQUIRE(ring.token(i - 1).position <= ring.token(i).position);

  NodeList weighted = ids({"a", "b"});
  weighted.weights = {1, 3};
  weighted.weighted = true;
  ring.build(weighted, 100, true);
  std::map<std::uint32_t, int> count;
  for (std::size_t i = 0; i < ring.size(); ++i) ++count[ring.token(i).node];
  CHECK(count[0] == 100);  // 100 per unit of weight
  CHECK(count[1] == 300);
}

TEST_CASE("ring: key owner is the successor of its XXH3 hash", "[compare][ring]") {
  const NodeList nodes = numbered_nodes(5, "t");
  auto placer = make_ring(10);
  placer->build(nodes);
  HashRing ring;
  ring.build(nodes, 10, false);
  const auto keys = keys_for_test(2000);
  const auto owners = assign(*placer, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    REQUIRE(owners[i] == ring.token(ring.successor(XXH3_64bits(keys[i].data(), keys[i].size()))).node);
}

// ---- maglev ----

TEST_CASE("maglev: the paper's example table", "[compare][maglev]") {
  // Eisenbud et al. 2016, Table 1: M = 7, B0 (offset 3, skip 4), B1 (0, 2), B2 (3, 1).
  // Permutations: B0 3 0 4 1 5 2 6; B1 0 2 4 6 1 3 5; B2 3 4 5 6 0 1 2.
  // Round 1: B0 takes 3, B1 takes 0, B2 finds 3 taken and takes 4.
  // Round 2: B0 finds 0 and 4 taken, takes 1; B1 takes 2; B2 takes 5.
  // Round 3: B0 finds 5 and 2 taken, takes 6: the table is full.
  const std::vector<std::uint32_t> before = {1, 0, 1, 0, 2, 2, 0};
  CHECK(maglev_populate({{3, 4}, {0, 2}, {3, 1}}, 7) == before);
  // B1 removed (B0, B2 renumbered 0, 1). Rounds: B0 3, B2 4; B0 0, B2 5; B0 1, B2 6; B0 2.
  const std::vector<std::uint32_t> after = {0, 0, 0, 0, 1, 1, 1};
  CHECK(maglev_populate({{3, 4}, {3, 1}}, 7) == after);
}

TEST_CASE("maglev: a full table with even shares at M = 65537", "[compare][maglev]") {
  const NodeList nodes = numbered_nodes(10, "t");
  std::vector<MaglevPermutation> backends;
  for (const auto& id : nodes.ids) {
    backends.push_back(maglev_permutation(id, 65537));
    CHECK(backends.back().offset < 65537);
    CHECK(backends.back().skip >= 1);
    CHECK(backends.back().skip < 65537);
  }
  const auto table = maglev_populate(backends, 65537);
  std::vector<std::size_t> count(10, 0);
  for (auto e : table) {
    REQUIRE(e < 10);  // every slot filled
    ++count[e];
  }
  for (auto c : count) CHECK(std::abs(static_cast<double>(c) / 6553.7 - 1) < 0.01);
}

TEST_CASE("maglev: prime check", "[compare][maglev]") {
  CHECK(is_prime(65537));
  CHECK(is_prime(7));
  CHECK(is_prime(2));
  CHECK_FALSE(is_prime(65536));
  CHECK_FALSE(is_prime(1));
  CHECK_FALSE(is_prime(0));
  CHECK_FALSE(is_prime(65535));
}

// ---- slots ----

TEST_CASE("slots: CRC16 XMODEM and Redis key slots", "[compare][slots]") {
  CHECK(crc16_xmodem("123456789") == 0x31C3);
  CHECK(crc16_xmodem("") == 0);
  // Redis documentation, CLUSTER KEYSLOT examples.
  CHECK(redis_key_slot("somekey") == 11058);
  CHECK(redis_key_slot("foo{hash_tag}") == 2515);
  CHECK(redis_key_slot("bar{hash_tag}") == 2515);
  CHECK(redis_key_slot("{user1000}.following") == redis_key_slot("user1000"));
  CHECK(redis_key_slot("foo{}{bar}") == (crc16_xmodem("foo{}{bar}") & 16383));  // empty tag
  CHECK(redis_key_slot("foo{{bar}}zap") == (crc16_xmodem("{bar") & 16383));
}

TEST_CASE("slots: a new cluster deals contiguous ranges", "[compare][slots]") {
  const SlotMap map = SlotMap::deal(10);
  CHECK(map.owner(0) == 0);
  CHECK(map.owner(1637) == 0);  // floor(16384 / 10) = 1638 slots for node 0
  CHECK(map.owner(1638) == 1);
  CHECK(map.owner(16383) == 9);
  for (std::uint32_t s = 1; s < kRedisSlots; ++s) REQUIRE(map.owner(s) >= map.owner(s - 1));
}

TEST_CASE("slots: adding a node moves only the slots it takes", "[compare][slots]") {
  const NodeList from = numbered_nodes(10, "t"), to = numbered_nodes(11, "t");
  const SlotMap before = SlotMap::deal(10);
  const SlotMap after = before.change(from.ids, to.ids);
  std::vector<std::size_t> count(11, 0);
  std::size_t changed = 0;
  for (std::uint32_t s = 0; s < kRedisSlots; ++s) {
    ++count[after.owner(s)];
    if (after.owner(s) != before.owner(s)) {
      ++changed;
      REQUIRE(after.owner(s) == 10);  // every moved slot went to the new node
    }
  }
  CHECK(changed == count[10]);
  CHECK(count[10] == 16384 / 11);
  for (auto c : count) CHECK((c == 1489 || c == 1490));
}

TEST_CASE("slots: removing a middle node hands out only its slots, evenly", "[compare][slots]") {
  const NodeList from = numbered_nodes(5, "t");
  const NodeList to = ids({"node-0", "node-1", "node-3", "node-4"});
  const SlotMap before = SlotMap::deal(5);
  const SlotMap after = before.change(from.ids, to.ids);
  std::vector<std::size_t> count(4, 0);
  for (std::uint32_t s = 0; s < kRedisSlots; ++s) {
    ++count[after.owner(s)];
    const std::string& old_id = from.ids[before.owner(s)];
    if (old_id != "node-2") REQUIRE(to.ids[after.owner(s)] == old_id);  // survivors keep theirs
  }
  CHECK(*std::max_element(count.begin(), count.end()) -
            *std::min_element(count.begin(), count.end()) <= 1);
}

TEST_CASE("slots: the placer moves exactly the keys of handed-over slots", "[compare][slots]") {
  auto placer = make_slots();
  placer->build(numbered_nodes(10, "t"));
  const auto keys = keys_for_test(5000);
  const auto before = assign(*placer, keys);
  CHECK(placer->change_to(numbered_nodes(11, "t")) == "");
  const auto after = assign(*placer, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE((after[i] == before[i] || after[i] == 10));
}

// ---- rendezvous ----

TEST_CASE("hrw placers agree with the scalar reference", "[compare][hrw]") {
  NodeList nodes = ids({"node-2", "node-10", "cache-a", "x"});  // list order != id order
  nodes.weights = {1, 2, 0.5, 3};
  nodes.weighted = true;
  const auto keys = keys_for_test(3000);
  struct Case {
    std::string name;
    std::optional<hrw::HashMode> hash;
    bool weighted;
  };
  for (const Case& c : {Case{"hrw-fnv1a", hrw::HashMode::fnv1a, false},
                        Case{"hrw-fnv1a-fmix", hrw::HashMode::fnv1a_fmix, false},
                        Case{"hrw-weighted", std::nullopt, true}}) {
    auto placer = make_hrw(c.name, c.hash, c.weighted);
    placer->build(nodes);
    const auto owners = assign(*placer, keys);
    const hrw::ClusterView view =
        to_cluster_view(nodes, c.weighted, c.hash.value_or(hrw::HashMode::fnv1a_fmix));
    for (std::size_t i = 0; i < keys.size(); ++i)
      REQUIRE(nodes.ids[owners[i]] == view.node(hrw::reference::owner(view, keys[i])).id);
  }
}

// ---- bounded loads ----

TEST_CASE("bounded loads: caps are ceil(c x fair load)", "[compare][bounded]") {
  CHECK(bounded_caps(numbered_nodes(3, "t"), 10, 1.25, false) ==
        std::vector<std::uint64_t>{5, 5, 5});  // ceil(1.25 x 10 / 3) = ceil(4.17)
  NodeList weighted = ids({"a", "b"});
  weighted.weights = {1, 3};
  CHECK(bounded_caps(weighted, 100, 1.1, true) == std::vector<std::uint64_t>{28, 83});
}

TEST_CASE("bounded loads: no node exceeds its cap, overflow takes the next candidate",
          "[compare][bounded]") {
  const NodeList nodes = numbered_nodes(6, "t");
  const auto keys = keys_for_test(6000);
  for (double c : {1.01, 1.1, 1.25}) {
    const auto caps = bounded_caps(nodes, keys.size(), c, false);
    for (auto& placer : {make_hrw_bounded(c), make_ring_bounded(20, c)}) {
      placer->build(nodes);
      const auto owners = assign(*placer, keys);
      std::vector<std::uint64_t> load(nodes.size(), 0);
      for (auto o : owners) ++load[o];
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        INFO(placer->name() << " c=" << c << " node " << n);
        CHECK(load[n] <= caps[n]);
      }
    }
  }
}

TEST_CASE("bounded loads: the first keys get their unbounded choice", "[compare][bounded]") {
  // Until some node is full, nothing overflows: the first ceil(c x fair) keys keep their
  // plain rendezvous / ring owner.
  const NodeList nodes = numbered_nodes(4, "t");
  const auto keys = keys_for_test(4000);
  auto plain_hrw = make_hrw("hrw-fnv1a-fmix", hrw::HashMode::fnv1a_fmix, false);
  auto bounded_hrw = make_hrw_bounded(1.1);
  auto plain_ring = make_ring(20);
  auto bounded_ring = make_ring_bounded(20, 1.1);
  for (auto* p : {plain_hrw.get(), bounded_hrw.get(), plain_ring.get(), bounded_ring.get()})
    p->build(nodes);
  const auto a = assign(*plain_hrw, keys), b = assign(*bounded_hrw, keys);
  const auto c = assign(*plain_ring, keys), d = assign(*bounded_ring, keys);
  for (std::size_t i = 0; i < 1100; ++i) {
    REQUIRE(a[i] == b[i]);
    REQUIRE(c[i] == d[i]);
  }
}

// ---- options and views ----

TEST_CASE("compare: invalid options and views are input errors", "[compare]") {
  CHECK_THROWS_AS(numbered_nodes(0, "--from 0"), hrw::InputError);
  Options o;
  CHECK_NOTHROW(validate(o, 11));
  o.load_factor = 1.0;
  CHECK_THROWS_AS(validate(o, 11), hrw::InputError);
  o = Options{};
  o.maglev_size = 65536;
  CHECK_THROWS_AS(validate(o, 11), hrw::InputError);
  o.maglev_size = 7;
  CHECK_THROWS_AS(validate(o, 11), hrw::InputError);
  o.maglev_size = 4294967291u;  // prime, but a 16 GB table
  CHECK_THROWS_AS(validate(o, 11), hrw::InputError);
  o = Options{};
  o.vnodes = 0;
  CHECK_THROWS_AS(validate(o, 11), hrw::InputError);
  hrw::ClusterSpec dup;
  dup.nodes = {{"a", {}, {}}, {"a", {}, {}}};
  CHECK_THROWS_AS(node_list(dup), hrw::InputError);
}

TEST_CASE("compare: ideal fraction is the total variation distance", "[compare]") {
  CHECK(ideal_moved_fraction(numbered_nodes(10, "a"), numbered_nodes(11, "b")) ==
        Approx(1.0 / 11));
  CHECK(ideal_moved_fraction(numbered_nodes(4, "a"), numbered_nodes(4, "b")) == Approx(0));
  NodeList a = ids({"x", "y"}), b = ids({"x", "y"});
  b.weights = {1, 3};  // shares 1/2,1/2 -> 1/4,3/4: half of |1/4| + |1/4|
  CHECK(ideal_moved_fraction(a, b) == Approx(0.25));
  CHECK(ideal_moved_fraction(ids({"x"}), ids({"y"})) == Approx(1));
}
