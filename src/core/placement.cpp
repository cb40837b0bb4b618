// The batch API (BatchPlacer, PairPlacer, hrw::place). Engine::reference walks the scalar
// reference key by key; Engine::simd compiles the view(s) into a kernel plan once per
// placer (kernel_plan.cpp) and runs the Highway kernels (kernels/*.cc) over chunks of keys
// with oneTBB. Every key is computed independently, so results depend on neither thread
// count nor chunking.
#include "hrw/placement.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string_view>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "hrw/det_math.hpp"
#include "hrw/hash.hpp"
#include "hrw/targets.hpp"
#include "hrw/reference.hpp"
#include "kernel_api.hpp"
#include "kernel_plan.hpp"
#include "tree_placement.hpp"

namespace hrw {
namespace {

// Keys per task: big enough to amortise the kernel's setup, small enough to balance.
constexpr std::size_t kChunk = 4096;

template <class Fn>
void for_chunks(std::size_t n, unsigned threads, Fn&& fn, std::size_t chunk = kChunk) {
  if (n == 0) return;
  threads = worker_threads(threads);
  if (threads == 1 || n <= chunk) {
    for (std::size_t lo = 0; lo < n; lo += chunk) fn(lo, std::min(n, lo + chunk));
    return;
  }
  auto body = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, chunk),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        // blocked_range may hand out up to 2*grain; keep kernel calls
                        // uniform (results never depend on this).
                        for (std::size_t lo = r.begin(); lo < r.end(); lo += chunk)
                          fn(lo, std::min(r.end(), lo + chunk));
                      });
  };
  if (threads == 0) {
    body();
  } else {
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(body);
  }
}

}  // namespace

unsigned worker_threads(unsigned threads) {
  const std::size_t allowed = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  return static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(allowed, 1)));
}

namespace {

void place_reference(const ClusterView& view, const KeyView& keys, const PlaceOptions& opt,
                     Placement& out, std::size_t lo, std::size_t hi,
                     std::atomic<std::uint64_t>& overflow) {
  const std::uint32_t r = opt.replicas;
  std::uint64_t over = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const std::string_view key = keys[i];
    std::uint32_t* dst = out.nodes.data() + i * r;
    if (view.has_cuts()) {  // contract §9
      const auto c = reference::place_with_cuts(view, key, r, opt.distinct_label, opt.allow_partial);
      std::copy(c.nodes.begin(), c.nodes.end(), dst);
      over += c.overflow;
    } else if (!opt.distinct_label.empty()) {
      const auto d = reference::top_r_distinct(view, key, r, opt.distinct_label, opt.allow_partial);
      std::copy(d.nodes.begin(), d.nodes.end(), dst);
    } else if (r == 1) {
      dst[0] = reference::owner(view, key);
    } else {
      const auto t = reference::top_r(view, key, r);
      std::copy(t.begin(), t.end(), dst);
    }
    if (opt.with_scores)
      for (std::uint32_t j = 0; j < r; ++j)
        if (dst[j] != kNoNode) out.scores[i * r + j] = reference::score_pair(view, key, dst[j]).score;
  }
  overflow += over;
}

}  // namespace

struct BatchPlacer::Compiled {
  const ClusterView* view;
  PlaceOptions options;
  std::uint32_t domain_count;  // distinct domains, or the node count without a label
  // The reference engine, and the kernels' fallback for R beyond what they keep in vectors.
  bool use_reference;
  kernels::KernelPlan plan;  // when !use_reference, flat views
  std::unique_ptr<const kernels::TreePlacer> tree;  // when !use_reference, hierarchical views
};

namespace {

// Sizes `out` for n keys (its memory is reused). The kernels write every rank of every
// key unless the result is partial: no fill then (nothing is touched twice).
void prepare(Placement& out, std::size_t n, const PlaceOptions& options,
             std::uint32_t domain_count, bool filled_by_kernels) {
  const std::uint32_t r = options.replicas;
  out.replicas = r;
  out.overflow = 0;
  out.partial = domain_count < r;  // check_replicas let it through: partial was allowed
  if (out.partial || !filled_by_kernels)
    out.nodes.assign(n * r, kNoNode);
  else
    out.nodes.resize(n * r);
  if (options.with_scores)
    out.scores.assign(n * r, 0.0);  // 0 where a partial result has no node
  else
    out.scores.clear();
}

// Runs a compiled plan (one view, or a fused pair) over keys into outs[v], chunk by chunk.
void place_kernels(const kernels::KernelPlan& plan, std::uint32_t seed_state,
                   const KeyView& keys, const PlaceOptions& options, Placement* const* outs,
                   const ClusterView* const* views_of) {
  std::atomic<std::uint64_t> overflow[2] = {0, 0};
  const std::uint32_t r = options.replicas;
  const bool with_scores = options.with_scores;
  const std::size_t views = plan.views.size();
  for_chunks(keys.size(), options.threads, [&](std::size_t lo, std::size_t hi) {
    std::uint32_t states[kChunk];
    kernels::key_states(seed_state, keys.data, keys.offsets, keys.end(), lo, hi, states);
    kernels::KernelOutput out[2];
    for (std::size_t v = 0; v < views; ++v)
      out[v] = {outs[v]->nodes.data() + lo * r,
                with_scores ? outs[v]->scores.data() + lo * r : nullptr, r};
    const std::size_t undecided = views == 1 ? kernels::run_batch(plan, states, hi - lo, out[0])
                                             : kernels::run_pair_batch(plan, states, hi - lo, out);
    if (with_scores && plan.weighted) {
      // Report u^(1/w) = det::exp(ln(u)/w), as reference::score_pair does.
      for (std::size_t v = 0; v < views; ++v)
        for (std::size_t i = lo; i < hi; ++i)
          for (std::uint32_t j = 0; j < plan.views[v].select; ++j) {
            double& s = outs[v]->scores[i * r + j];
            s = det::exp(s);
          }
    }
    // Contract §9: the keys the kernel left undecided (fewer than R nodes or domains cleared
    // their cut, or one that cleared has r = 0) are placed by the reference, overflow counted.
    if (undecided != 0)
      for (std::size_t v = 0; v < views; ++v) {
        std::uint64_t over = 0;
        for (std::size_t i = lo; i < hi; ++i) {
          std::uint32_t* dst = outs[v]->nodes.data() + i * r;
          if (dst[0] != kNoNode) continue;
          const auto c = reference::place_with_cuts(*views_of[v], keys[i], r, options.distinct_label,
                                                    options.allow_partial);
          over += c.overflow;
          for (std::uint32_t j = 0; j < r; ++j) {
            dst[j] = j < c.nodes.size() ? c.nodes[j] : kNoNode;
            if (with_scores)
              outs[v]->scores[i * r + j] =
                  dst[j] == kNoNode ? 0.0 : reference::score_pair(*views_of[v], keys[i], dst[j]).score;
          }
        }
        overflow[v] += over;
      }
  });
  for (std::size_t v = 0; v < views; ++v) outs[v]->overflow = overflow[v];
}

}  // namespace

BatchPlacer::BatchPlacer(const ClusterView& view, const PlaceOptions& options)
    : BatchPlacer(validate_request(view, options)) {}

BatchPlacer::BatchPlacer(const ValidRequest& request) {
  apply_target_environment();
  const ClusterView& view = request.view();
  const PlaceOptions& options = request.options();
  auto c = std::make_unique<Compiled>();
  c->view = &view;
  c->options = options;
  c->domain_count = options.distinct_label.empty() ? static_cast<std::uint32_t>(view.size())
                                                   : view.domain_count(options.distinct_label);
  c->use_reference = options.engine == Engine::reference ||
                     options.replicas > kernels::kMaxKernelReplicas;
  if (!c->use_reference && view.hierarchy())
    c->tree = std::make_unique<const kernels::TreePlacer>(view, options);
  else if (!c->use_reference)
    c->plan = kernels::compile_plan({&view}, options);
  compiled_ = std::move(c);
}

BatchPlacer::~BatchPlacer() = default;
BatchPlacer::BatchPlacer(BatchPlacer&&) noexcept = default;
BatchPlacer& BatchPlacer::operator=(BatchPlacer&&) noexcept = default;

void BatchPlacer::place(const KeyBatch& keys, Placement& out) const { place(keys.view(), out); }

void BatchPlacer::place(const KeyView& keys, Placement& out) const {
  const Compiled& c = *compiled_;
  prepare(out, keys.size(), c.options, c.domain_count, !c.use_reference);
  if (c.use_reference) {
    std::atomic<std::uint64_t> overflow{0};
    for_chunks(keys.size(), c.options.threads, [&](std::size_t lo, std::size_t hi) {
      place_reference(*c.view, keys, c.options, out, lo, hi, overflow);
    });
    out.overflow = overflow;
    return;
  }
  if (c.tree) {
    for_chunks(keys.size(), c.options.threads,
               [&](std::size_t lo, std::size_t hi) { c.tree->place_chunk(keys, lo, hi, out); },
               kernels::TreePlacer::kChunk);
    return;
  }
  Placement* outs[] = {&out};
  const ClusterView* views[] = {c.view};
  place_kernels(c.plan, c.view->seed_state(), keys, c.options, outs, views);
}

struct PairPlacer::Fused {
  const ClusterView* views[2];
  kernels::KernelPlan plan;
  std::uint32_t seed_state;
  std::uint32_t domain_count[2];
};

PairPlacer::PairPlacer(const ClusterView& a, const ClusterView& b, const PlaceOptions& options)
    : PairPlacer(validate_request(a, options), validate_request(b, options)) {}

PairPlacer::PairPlacer(const ValidRequest& ra, const ValidRequest& rb)
    : a_(ra), b_(rb), options_(ra.options()) {
  const ClusterView &a = ra.view(), &b = rb.view();
  const PlaceOptions &options = options_, &options_b = rb.options();
  // One fused walk places both views by one request: another rule in B places twice.
  const bool alike = options.replicas == options_b.replicas &&
                     options.distinct_label == options_b.distinct_label &&
                     options.allow_partial == options_b.allow_partial &&
                     options.engine == options_b.engine && options.with_scores == options_b.with_scores;
  if (!alike || options.engine == Engine::reference || options.replicas > kernels::kMaxKernelReplicas ||
      !kernels::can_fuse(a, b))
    return;
  auto f = std::make_unique<Fused>();
  f->plan = kernels::compile_plan({&a, &b}, options);
  f->seed_state = a.seed_state();
  f->views[0] = &a;
  f->views[1] = &b;
  const ClusterView* views[] = {&a, &b};
  for (int v = 0; v < 2; ++v)
    f->domain_count[v] = options.distinct_label.empty()
                             ? static_cast<std::uint32_t>(views[v]->size())
                             : views[v]->domain_count(options.distinct_label);
  fused_ = std::move(f);
}

PairPlacer::~PairPlacer() = default;
PairPlacer::PairPlacer(PairPlacer&&) noexcept = default;
PairPlacer& PairPlacer::operator=(PairPlacer&&) noexcept = default;

void PairPlacer::place(const KeyBatch& keys, Placement& a, Placement& b) const {
  place(keys.view(), a, b);
}

void PairPlacer::place(const KeyView& keys, Placement& a, Placement& b) const {
  if (!fused_) {
    a_.place(keys, a);
    b_.place(keys, b);
    return;
  }
  prepare(a, keys.size(), options_, fused_->domain_count[0], true);
  prepare(b, keys.size(), options_, fused_->domain_count[1], true);
  Placement* outs[] = {&a, &b};
  place_kernels(fused_->plan, fused_->seed_state, keys, options_, outs, fused_->views);
}

void place(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& options,
           Placement& out) {
  BatchPlacer(view, options).place(keys, out);
}

Placement place(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& options) {
  Placement out;
  place(view, keys, options, out);
  return out;
}

}  // namespace hrw
