// Measures the error of hrw::det::ln and hrw::det::exp against long double logl/expl.
// ln is checked on every input the ranking can give it: u = (r + 1) / 2^32 for all 2^32
// values of r (or every `stride`-th r). Prints worst errors in ulps of the exact result.
//   hrw_det_math_error [stride]      (stride 1 = all 2^32 inputs; the docs quote that run)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "hrw/det_math.hpp"

namespace {

struct Worst {
  long double ulps = 0;
  std::uint64_t at = 0;
  std::uint64_t checked = 0;
  std::uint64_t inexact = 0;  // results that are not the correctly rounded double
  Worst merge(const Worst& o) const {
    Worst w = ulps >= o.ulps ? *this : o;
    w.checked = checked + o.checked;
    w.inexact = inexact + o.inexact;
    return w;
  }
};

// Error of `got` in units of the last place of the exact value.
long double ulp_error(double got, long double exact) {
  const double rounded = static_cast<double>(exact);
  if (rounded == 0) return got == 0 ? 0 : INFINITY;
  const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
  return std::fabs(static_cast<long double>(got) - exact) / ulp;
}

// Worst error of det_fn against exact_fn over inputs input(i), i in [0, count), on all
// cores. Inputs for which input() returns NaN are skipped.
template <class Input, class Det, class Exact>
Worst sweep(std::uint64_t count, Input input, Det det_fn, Exact exact_fn) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(0, count), Worst{},
      [&](const tbb::blocked_range<std::uint64_t>& range, Worst w) {
        for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
          const double x = input(i);
          if (std::isnan(x)) continue;
          const double got = det_fn(x);
          const long double exact = exact_fn(static_cast<long double>(x));
          const long double e = ulp_error(got, exact);
          ++w.checked;
          if (got != static_cast<double>(exact)) ++w.inexact;
          if (e > w.ulps) w = Worst{e, i, w.checked, w.inexact};
        }
        return w;
      },
      [](const Worst& a, const Worst& b) { return a.merge(b); });
}

Worst check_ln(std::uint64_t stride) {
  const std::uint64_t count = (std::uint64_t{1} << 32) / stride;
  Worst w = sweep(
      count,
      [&](std::uint64_t i) {
        const double u = hrw::det::unit_from_hash(static_cast<std::uint32_t>(i * stride));
        return u == 1.0 ? NAN : u;  // ln(1) = 0 exactly; no ulp to measure against
      },
      [](double u) { return hrw::det::ln(u); }, [](long double u) { return logl(u); });
  w.at *= stride;  // report r, not the sample number
  return w;
}

Worst check_exp(std::uint64_t samples) {
  // x over [-708, 0]: the reported scores that are normal doubles.
  return sweep(
      samples,
      [&](std::uint64_t i) { return -708.0 * static_cast<double>(i) / static_cast<double>(samples); },
      [](double x) { return hrw::det::exp(x); }, [](long double x) { return expl(x); });
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t stride = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  if (stride == 0) return 2;
  const Worst ln = check_ln(stride);
  std::printf("det::ln  over %llu inputs u=(r+1)/2^32 (stride %llu): max error %.4Lf ulp at r=%llu, "
              "%llu not correctly rounded (%.4f%%)\n",
              static_cast<unsigned long long>(ln.checked), static_cast<unsigned long long>(stride),
              ln.ulps, static_cast<unsigned long long>(ln.at),
              static_cast<unsigned long long>(ln.inexact), 100.0 * ln.inexact / ln.checked);
  const std::uint64_t samples = 100'000'000 / stride + 1000;
  const Worst ex = check_exp(samples);
  std::printf("det::exp over %llu points of [-708, 0]: max error %.4Lf ulp, %llu not correctly "
              "rounded (%.4f%%)\n",
              static_cast<unsigned long long>(ex.checked), ex.ulps,
              static_cast<unsigned long long>(ex.inexact), 100.0 * ex.inexact / ex.checked);
  return 0;
}
