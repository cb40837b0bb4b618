// Exact vectors for the contract: published FNV-1a values, fmix32, and hand-checked
// rankings (computed independently, with Python integers, from the contract's formulas).
#include <catch2/catch.hpp>

#include <string>
#include <unordered_map>

#include "hrw/cluster_view.hpp"
#include "hrw/hash.hpp"
#include "hrw/reference.hpp"

using namespace hrw;

namespace {

ClusterView view_of(std::vector<std::string> ids, std::string seed = "",
                    HashMode hash = HashMode::fnv1a_fmix, std::vector<double> weights = {}) {
  ClusterSpec spec;
  spec.seed = std::move(seed);
  spec.hash = hash;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    NodeSpec n{ids[i], {}, {}};
    if (!weights.empty()) n.weight = weights[i];
    spec.nodes.push_back(std::move(n));
  }
  return ClusterView(std::move(spec));
}

struct Row {
  std::string node;
  std::uint32_t fnv, r;
  double score;
};

void check_ranking(const ClusterView& view, std::string_view key, const std::vector<Row>& want) {
  auto got = reference::rank(view, key);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("rank " << i + 1);
    CHECK(view.node(got[i].node).id == want[i].node);
    CHECK(got[i].fnv == want[i].fnv);
    CHECK(got[i].r == want[i].r);
    CHECK(got[i].score == Approx(want[i].score).epsilon(1e-15));
  }
  CHECK(view.node(reference::owner(view, key)).id == want.front().node);
}

}  // namespace

TEST_CASE("FNV-1a 32 published vectors", "[contract][hash]") {
  STATIC_REQUIRE(fnv1a32("") == 0x811C9DC5u);
  STATIC_REQUIRE(fnv1a32("a") == 0xE40C292Cu);
  STATIC_REQUIRE(fnv1a32("foobar") == 0xBF9CF968u);
  // Continuing a state equals hashing the concatenation: the kernels rely on it.
  CHECK(fnv1a32_continue(fnv1a32("foo"), "bar") == fnv1a32("foobar"));
}

TEST_CASE("fmix32 vectors", "[contract][hash]") {
  STATIC_REQUIRE(fmix32(0) == 0u);
  STATIC_REQUIRE(fmix32(1) == 0x514E28B7u);
  STATIC_REQUIRE(fmix32(0x811C9DC5u) == 0xAB3E7C0Bu);
  STATIC_REQUIRE(fmix32(0xDEADBEEFu) == 0x0DE5C6A9u);
  STATIC_REQUIRE(fmix32(0xFFFFFFFFu) == 0x81F16F39u);
}

TEST_CASE("hand-checked rankings, unweighted", "[contract][ranking]") {
  const std::vector<std::string> ids{"node-1", "node-2", "node-3", "node-4"};
  check_ranking(view_of(ids), "user:42",
                {{"node-4", 2501216775u, 3013550908u, 3013550908.0},
                 {"node-3", 2450883918u, 2264777988u, 2264777988.0},
                 {"node-1", 2417328680u, 1038041658u, 1038041658.0},
                 {"node-2", 2467661537u, 948476757u, 948476757.0}});
  check_ranking(view_of(ids, "", HashMode::fnv1a), "user:42",
                {{"node-4", 2501216775u, 2501216775u, 2501216775.0},
                 {"node-2", 2467661537u, 2467661537u, 2467661537.0},
                 {"node-3", 2450883918u, 2450883918u, 2450883918.0},
                 {"node-1", 2417328680u, 2417328680u, 2417328680.0}});
  check_ranking(view_of(ids, "eu-prod"), "user:42",
                {{"node-4", 4089567105u, 3729419939u, 3729419939.0},
                 {"node-2", 4123122343u, 3672076967u, 3672076967.0},
                 {"node-3", 4106344724u, 1602765982u, 1602765982.0},
                 {"node-1", 4139899962u, 1549896668u, 1549896668.0}});
  check_ranking(view_of({"c", "a", "b"}), "",
                {{"b", 3876335077u, 2193908274u, 2193908274.0},
                 {"c", 3859557458u, 1185767313u, 1185767313.0},
                 {"a", 3826002220u, 444641715u, 444641715.0}});
}

TEST_CASE("hand-checked rankings, weighted", "[contract][ranking][weighted]") {
  const std::vector<std::string> ids{"cache-a", "cache-b", "cache-c", "cache-d"};
  check_ranking(view_of(ids, "", HashMode::fnv1a_fmix, {1, 2, 3, 4}), "k7",
                {{"cache-d", 508540210u, 3906118675u, 0.976554292146522},
                 {"cache-c", 424652115u, 3307116864u, 0.9165649107183786},
                 {"cache-b", 407874496u, 686617038u, 0.39983182356346286},
                 {"cache-a", 458207353u, 30091052u, 0.007006119238212705}});
  check_ranking(view_of(ids, "", HashMode::fnv1a, {1, 2, 3, 4}), "k8",
                {{"cache-d", 3113393133u, 3113393133u, 0.9227170073469348},
                 {"cache-c", 2995949800u, 2995949800u, 0.8868664453649725},
                 {"cache-b", 3012727419u, 3012727419u, 0.8375292617886625},
                 {"cache-a", 3029505038u, 3029505038u, 0.7053616081830114}});
}

TEST_CASE("tie rule: equal scores rank the bytewise-smaller id first", "[contract][ties]") {
  SECTION("the comparator") {
    CHECK(id_less("a", "b"));
    CHECK(id_less("a", "ab"));  // a proper prefix first
    CHECK_FALSE(id_less("ab", "a"));
    CHECK(id_less("\x7f", "\x80"));  // unsigned bytes, as memcmp
    CHECK(id_less(std::string("a\0b", 3), "ab"));
    const ClusterView view = view_of({"zz", "a", "ab"});
    reference::PairScore x{0, 0, 7, 7.0, 7.0}, y{1, 0, 7, 7.0, 7.0};
    // Nodes are stored in id order: index 0 = "a", 1 = "ab", 2 = "zz".
    CHECK(reference::ranks_before(view, x, y));
    CHECK_FALSE(reference::ranks_before(view, y, x));
  }
  SECTION("a real collision of r between two ids") {
    // Among ~2^17 ids, two are certain (birthday bound) to share r for one key.
    std::unordered_map<std::uint32_t, std::string> seen;
    std::string a, b;
    for (int i = 0; a.empty(); ++i) {
      std::string id = "n" + std::to_string(i);
      const std::uint32_t r = fmix32(fnv1a32_continue(fnv1a32("tie-key"), id));
      auto [it, fresh] = seen.emplace(r, id);
      if (!fresh) a = it->second, b = id;
    }
    const ClusterView view = view_of({b, a});
    const auto ranking = reference::rank(view, "tie-key");
    REQUIRE(ranking[0].r == ranking[1].r);
    const std::string& smaller = id_less(a, b) ? a : b;
    CHECK(view.node(ranking[0].node).id == smaller);
    CHECK(view.node(reference::owner(view, "tie-key")).id == smaller);
  }
}
