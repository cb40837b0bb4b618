// The batch API (BatchPlacer, hrw::place). Engine::reference walks the scalar reference
// key by key; Engine::simd compiles the view into a kernel plan once per BatchPlacer
// (node_trie.cpp) and runs the Highway kernels (kernels/hrw_kernels.cc) over chunks of
// keys with oneTBB. Every key is computed independently, so results depend on neither
// thread count nor chunking.
#include "hrw/placement.hpp"

#include <algorithm>
#include <memory>
#include <string_view>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "hrw/det_math.hpp"
#include "hrw/hash.hpp"
#include "hrw/reference.hpp"
#include "kernel_api.hpp"
#include "node_trie.hpp"

namespace hrw {
namespace {

// Keys per task: big enough to amortise the kernel's setup, small enough to balance.
constexpr std::size_t kChunk = 4096;

template <class Fn>
void for_chunks(std::size_t n, unsigned threads, Fn&& fn) {
  if (n == 0) return;
  if (threads == 1 || n <= kChunk) {
    for (std::size_t lo = 0; lo < n; lo += kChunk) fn(lo, std::min(n, lo + kChunk));
    return;
  }
  auto body = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kChunk),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        // blocked_range may hand out up to 2*grain; keep kernel calls
                        // uniform (results never depend on this).
                        for (std::size_t lo = r.begin(); lo < r.end(); lo += kChunk)
                          fn(lo, std::min(r.end(), lo + kChunk));
                      });
  };
  if (threads == 0) {
    body();
  } else {
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(body);
  }
}

void place_reference(const ClusterView& view, const KeyView& keys, const PlaceOptions& opt,
                     Placement& out, std::size_t lo, std::size_t hi) {
  const std::uint32_t r = opt.replicas;
  for (std::size_t i = lo; i < hi; ++i) {
    const std::string_view key = keys[i];
    std::uint32_t* dst = out.nodes.data() + i * r;
    if (!opt.distinct_label.empty()) {
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
}

}  // namespace

struct BatchPlacer::Compiled {
  const ClusterView* view;
  PlaceOptions options;
  std::uint32_t domain_count;  // distinct domains, or the node count without a label
  // The reference engine, and the kernels' fallback for R beyond what they keep in vectors.
  bool use_reference;
  kernels::KernelPlan plan;  // when !use_reference
};

namespace {

kernels::KernelPlan compile(const ClusterView& view, const PlaceOptions& options,
                            std::uint32_t domain_count) {
  const std::uint32_t r = options.replicas;
  kernels::KernelPlan plan;
  std::vector<std::string_view> ids;
  ids.reserve(view.size());
  for (const Node& node : view.nodes()) ids.push_back(node.id);
  // Domains matter only when some domain holds two nodes and more than one is chosen:
  // the best node overall is always its domain's representative.
  plan.distinct = !options.distinct_label.empty() && domain_count < view.size() && r > 1;
  std::vector<std::uint32_t> domains;
  if (plan.distinct) domains = view.domains(options.distinct_label);
  plan.program = kernels::build_trie_program(ids, plan.distinct ? &domains : nullptr);
  plan.domain_count = plan.distinct ? domain_count : 0;
  plan.nodes = static_cast<std::uint32_t>(view.size());
  plan.fmix = view.hash() == HashMode::fnv1a_fmix;
  plan.weighted = view.weighted();
  if (plan.weighted)
    for (const Node& node : view.nodes()) plan.weights.push_back(node.weight);
  plan.select = std::min(r, domain_count);
  return plan;
}

}  // namespace

BatchPlacer::BatchPlacer(const ClusterView& view, const PlaceOptions& options) {
  validate_request(view, options);
  auto c = std::make_unique<Compiled>();
  c->view = &view;
  c->options = options;
  c->domain_count = options.distinct_label.empty() ? static_cast<std::uint32_t>(view.size())
                                                   : view.domain_count(options.distinct_label);
  c->use_reference =
      options.engine == Engine::reference || options.replicas > kernels::kMaxKernelReplicas;
  if (!c->use_reference) c->plan = compile(view, options, c->domain_count);
  compiled_ = std::move(c);
}

BatchPlacer::~BatchPlacer() = default;
BatchPlacer::BatchPlacer(BatchPlacer&&) noexcept = default;
BatchPlacer& BatchPlacer::operator=(BatchPlacer&&) noexcept = default;

void BatchPlacer::place(const KeyBatch& keys, Placement& out) const { place(keys.view(), out); }

void BatchPlacer::place(const KeyView& keys, Placement& out) const {
  const Compiled& c = *compiled_;
  const PlaceOptions& options = c.options;
  const std::uint32_t r = options.replicas;
  const std::size_t n = keys.size();

  out.replicas = r;
  out.partial = c.domain_count < r;  // check_replicas let it through: partial was allowed
  // The kernels write every rank of every key unless the result is partial: no fill then
  // (a reused Placement keeps its memory and nothing is touched twice).
  if (out.partial || c.use_reference)
    out.nodes.assign(n * r, kNoNode);
  else
    out.nodes.resize(n * r);
  if (options.with_scores)
    out.scores.assign(n * r, 0.0);  // 0 where a partial result has no node
  else
    out.scores.clear();

  if (c.use_reference) {
    for_chunks(n, options.threads, [&](std::size_t lo, std::size_t hi) {
      place_reference(*c.view, keys, options, out, lo, hi);
    });
    return;
  }

  const kernels::KernelPlan& plan = c.plan;
  const std::uint32_t seed_state = c.view->seed_state();
  const bool with_scores = options.with_scores;
  for_chunks(n, options.threads, [&](std::size_t lo, std::size_t hi) {
    std::uint32_t states[kChunk];
    kernels::key_states(seed_state, keys.data, keys.offsets, keys.end(), lo, hi, states);
    double* rank = with_scores ? out.scores.data() + lo * r : nullptr;
    kernels::run_batch(plan, states, hi - lo, out.nodes.data() + lo * r, rank, r);
    if (with_scores && plan.weighted) {
      // Report u^(1/w) = det::exp(ln(u)/w), as reference::score_pair does.
      for (std::size_t i = lo; i < hi; ++i)
        for (std::uint32_t j = 0; j < plan.select; ++j) {
          double& s = out.scores[i * r + j];
          s = det::exp(s);
        }
    }
  });
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
