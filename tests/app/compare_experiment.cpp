// The classic experiment: 1e6 keys, 10 -> 11 servers. The ideal moves 1/11 of the keys;
// modulo moves about 10/11. Under ARM emulation, or when HRW_TEST_SCALE is set to a
// fraction, fewer keys are used and each tolerance widens to 5 binomial standard deviations
// when that is larger than the native one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "compare/bounded_caps.hpp"
#include "hrw/compare.hpp"
#include "output/svg_chart.hpp"
#include "test_scale.hpp"
#include "svg_xml_check.hpp"

using namespace hrw::compare;

namespace {

std::size_t experiment_keys() {
  // Never above the classic experiment's 10^6 keys, whatever HRW_TEST_SCALE says.
  double scale = hrw::test::test_scale(hrw::test::kEmulatedScale);
  if (scale > 1) scale = 1.0;
  return static_cast<std::size_t>(1e6 * scale);
}

const Report& experiment() {
  static const Report report = [] {
    const std::size_t n = experiment_keys();
    return run(numbered_nodes(10, "--from 10"), numbered_nodes(11, "--to 11"), sample_keys(n),
               Options{});
  }();
  return report;
}

const AlgorithmResult& algorithm(const std::string& name) {
  for (const auto& a : experiment().algorithms)
    if (a.name == name) return a;
  FAIL("no algorithm " << name);
  throw;
}

// The larger of the native tolerance and 5 standard deviations of a binomial fraction.
double tolerance(double native, double p) {
  return std::max(native, 5 * std::sqrt(p * (1 - p) / static_cast<double>(experiment().keys)));
}

}  // namespace

// One test case: ctest runs every case in its own process, and each would rerun the experiment.
TEST_CASE("experiment 10 -> 11", "[compare][experiment][svg]") {
  const Report& r = experiment();
  INFO(format_table(r));
  // ---- the schemes and the ideal ----
  CHECK(r.ideal_fraction == Approx(1.0 / 11));
  std::vector<std::string> names;
  for (const auto& a : r.algorithms) names.push_back(a.name);
  CHECK(names == std::vector<std::string>{"modulo", "ring", "jump", "maglev", "slots", "hrw-fnv1a",
                                          "hrw-fnv1a-fmix", "hrw-bounded", "hrw-cuts", "ring-bounded"});
  for (const auto& a : r.algorithms) {
    INFO(a.name);
    REQUIRE(a.moved_fraction.has_value());  // appending a node: every scheme expresses it
    CHECK(a.note == "");
    CHECK(a.after.ratio.size() == 11);
    CHECK(a.before.ratio.size() == 10);
  }

  // ---- moved fractions ----

  const double ideal = 1.0 / 11;
  CHECK(std::abs(*algorithm("modulo").moved_fraction - 10.0 / 11) <= tolerance(0.01, 10.0 / 11));
  CHECK(std::abs(*algorithm("jump").moved_fraction - ideal) <= tolerance(0.003, ideal));
  CHECK(std::abs(*algorithm("hrw-fnv1a-fmix").moved_fraction - ideal) <= tolerance(0.003, ideal));
  CHECK(std::abs(*algorithm("slots").moved_fraction - ideal) <= tolerance(0.003, ideal));
  const double ring_moved = *algorithm("ring").moved_fraction;
  CHECK(ring_moved >= 0.06);
  CHECK(ring_moved <= 0.13);
  // Maglev trades a little extra disruption for balance; the paper measures a few percent.
  CHECK(*algorithm("maglev").moved_fraction < 1.2 * ideal + tolerance(0.003, ideal));

  // ---- load balance ----

  // With V tokens a server's arc share has a coefficient of variation of about 1/sqrt(V)
  // (0.1 at V = 100), so the fullest of 11 servers sits near 1 + 1.6 x 0.1 = 1.16, and a
  // particular hash can land 2 sigma above: 1.15 is not a property of the ring, 1.35 is
  // (3.5 sigma).
  const auto& ring = algorithm("ring");
  CHECK(ring.after.load_cv > 0.05);
  CHECK(ring.after.load_cv < 0.2);
  CHECK(ring.after.peak_to_mean < 1.35);
  for (const char* name : {"modulo", "jump", "maglev", "slots", "hrw-fnv1a-fmix"}) {
    INFO(name);
    CHECK(algorithm(name).after.peak_to_mean < 1.05);
    CHECK(algorithm(name).after.min_to_mean > 0.95);
  }
  // Raw FNV-1a on ids that differ in the last bytes: the skew the contract's fmix fixes.
  CHECK(algorithm("hrw-fnv1a").after.peak_to_mean > 1.5);

  // ---- bounded variants never exceed the cap ----

  for (const char* name : {"hrw-bounded", "hrw-cuts", "ring-bounded"}) {
    for (const auto* stats : {&algorithm(name).before, &algorithm(name).after}) {
      const std::size_t nodes = stats->ratio.size();
      const double fair = static_cast<double>(r.keys) / static_cast<double>(nodes);
      const double cap = std::ceil(r.options.load_factor * fair);
      for (double ratio : stats->ratio) {
        INFO(name << " load " << ratio * fair << " cap " << cap);
        CHECK(std::round(ratio * fair) <= cap);
      }
    }
  }

  // ---- chart and formats ----

  const std::string svg = format_svg(r);
  CHECK(hrw::test::xml_wellformedness_error(svg) == "");
  CHECK(hrw::test::count_in_panel(svg, 0, "class=\"bar\"") == r.algorithms.size());
  CHECK(hrw::test::count_in_panel(svg, 1, "class=\"bar\"") == 2 * r.algorithms.size());
  const std::string csv = format_csv(r);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(r.algorithms.size() + 1));
}

TEST_CASE("compare: tighter load factor bounds the ring's peak", "[compare][bounded]") {
  // The default c = 1.25 is above the plain ring's peak here; c = 1.05 must clip it.
  Options o;
  o.load_factor = 1.05;
  const auto keys = sample_keys(20000);
  const Report r = run(numbered_nodes(10, "a"), numbered_nodes(11, "b"), keys, o);
  int checked = 0;
  for (const auto& a : r.algorithms)
    if (a.name == "ring-bounded" || a.name == "hrw-bounded" || a.name == "hrw-cuts") {
      INFO(a.name);
      const double cap = std::ceil(1.05 * 20000.0 / 11);
      CHECK(a.after.peak_to_mean * 20000.0 / 11 <= cap + 1e-6);
      ++checked;
    }
  CHECK(checked == 3);  // a renamed scheme must fail here, not pass with nothing checked
}
