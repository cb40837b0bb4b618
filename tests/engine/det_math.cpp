// The deterministic ln/exp against long double libm, within the error documented in
// docs/placement-contract.md (measured over all 2^32 inputs by hrw_det_math_error).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "hrw/det_math.hpp"

using namespace hrw;

namespace {

long double ulps(double got, long double exact) {
  const double rounded = static_cast<double>(exact);
  const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
  return std::fabs(static_cast<long double>(got) - exact) / ulp;
}

}  // namespace

TEST_CASE("unit_from_hash is (r + 1) / 2^32 exactly", "[det]") {
  CHECK(det::unit_from_hash(0) == 0x1p-32);
  CHECK(det::unit_from_hash(0xFFFFFFFFu) == 1.0);
  CHECK(det::unit_from_hash(0x7FFFFFFFu) == 0.5);
  std::mt19937 rng(1);
  for (int i = 0; i < 10000; ++i) {
    const std::uint32_t r = rng();
    CHECK(det::unit_from_hash(r) == (static_cast<double>(r) + 1.0) / 4294967296.0);
  }
}

TEST_CASE("det::ln within 2.1 ulp of logl on the ranking's inputs", "[det]") {
  CHECK(det::ln(1.0) == 0.0);
  CHECK(det::ln(0.5) == -0.69314718055994530942);
  long double worst = 0;
  // Every 997th r plus both ends: ~4.3 million inputs spread over all binades.
  for (std::uint64_t r = 0; r < (std::uint64_t{1} << 32); r += 997) {
    const double u = det::unit_from_hash(static_cast<std::uint32_t>(r));
    if (u == 1.0) continue;
    worst = std::max(worst, ulps(det::ln(u), logl(static_cast<long double>(u))));
  }
  INFO("worst ln error " << static_cast<double>(worst) << " ulp");
  CHECK(worst <= 2.1L);
  CHECK(worst > 0.5L);  // the bound is tight: a sloppier ln would be caught
}

TEST_CASE("det::exp within 1.5 ulp of expl on [-708, 0]", "[det]") {
  CHECK(det::exp(0.0) == 1.0);
  CHECK(det::exp(-1000.0) == 0.0);
  long double worst = 0;
  for (int i = 0; i <= 2'000'000; ++i) {
    const double x = -708.0 * i / 2'000'000.0;
    worst = std::max(worst, ulps(det::exp(x), expl(static_cast<long double>(x))));
  }
  INFO("worst exp error " << static_cast<double>(worst) << " ulp");
  CHECK(worst <= 1.5L);
}

TEST_CASE("weighted key orders like u^(1/w)", "[det]") {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> weight(0.1, 10.0);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t ra = rng(), rb = rng();
    const double wa = weight(rng), wb = weight(rng);
    const long double ta = powl(det::unit_from_hash(ra), 1.0L / wa);
    const long double tb = powl(det::unit_from_hash(rb), 1.0L / wb);
    if (fabsl(ta - tb) < 1e-12L * ta) continue;  // too close for a 2-ulp ln to decide
    CHECK((det::weighted_key(ra, wa) > det::weighted_key(rb, wb)) == (ta > tb));
  }
}
