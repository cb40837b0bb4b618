// hrw plan end to end: open the input and every output (so that an unwritable destination
// fails before hours of work), stream, check the accounting, then publish all-or-nothing.
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "plan/plan_outputs.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

// The moves go to `sink(plan)` (none when it returns null).
PlanSummary stream_plan(const ValidRequest& from, const ValidRequest& to, KeySource& source,
                        const StreamOptions& options, std::uint64_t batch_size,
                        const std::function<MoveSink*(const PlanBuilder&)>& sink_for, const PlanChunkSteps& steps) {
  PlanBuilder plan(from.view(), to.view(), from.options(), to.options(), batch_size);
  MoveSink* sink = sink_for(plan);
  PerChunk<PlanChunk> counted;
  ChunkHandlers handlers;
  handlers.prepare = [&](std::size_t slots) {
    counted.resize(slots);
    if (steps.prepare) steps.prepare(slots);
  };
  const MoveCsv* rows = sink ? sink->row_format() : nullptr;
  handlers.digest = [&](ChunkWork& work) { plan.digest(work, counted[work], rows); };
  handlers.consume = [&](ChunkWork& work) {
    plan.add(work, counted[work], sink);
    if (steps.after_chunk) steps.after_chunk(work);
  };
  handlers.write = steps.write;  // empty when steps.write is
  stream_placements(source, {from, to}, options, handlers);
  // Checked before anything is published: a plan that does not add up is never written.
  return plan.finish(source.keys_read(), source.has_bytes(), source.has_requests());
}

namespace {

// The moved keys' plan stands for the whole plan's moves (PlanJob::all_keys): the rows and
// moves they make must be the parts' exactly.
PlanSummary all_keys_summary(const PlanSummary& of_moves, const PlanSummary& all) {
  if (of_moves.moved != all.moved || of_moves.rows != all.rows || of_moves.read != all.moved)
    throw InputError(fmt::format("plan parts: the moved keys given ({} keys, {} rows) are not the moves the "
                                 "parts counted ({} keys, {} rows)",
                                 of_moves.read.keys, of_moves.rows, all.moved.keys, all.rows));
  PlanSummary s = all;
  s.transitions = of_moves.transitions;
  return s;
}

}  // namespace

PlanSummary measure_plan(const ClusterView& from, const ClusterView& to, const KeyInput& keys,
                         const PlaceOptions& place, const ProgressCallback& progress) {
  KeySource source(keys);
  PlanChunkSteps steps;
  steps.after_chunk = [&](const ChunkWork& work) {
    if (progress)
      progress({work.chunk.first + work.chunk.size(), work.chunk.input_offset, source.total_bytes()});
  };
  return stream_plan(validate_request(from, place), validate_request(to, place), source, {keys.chunk_keys}, 1,
                     [](const PlanBuilder&) { return nullptr; }, steps);
}

PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job) {
  return run_plan({validate_request(from, job.place), validate_request(to, job.to_place())}, job);
}

PlanSummary run_plan(const PlanRequests& requests, const PlanJob& job) {
  const ClusterView &from = requests.from.view(), &to = requests.to.view();
  PlanFolder folder(job.out_dir);
  plan_detail::PlanOutputs out(folder, "", job.svg, job.batch_size, job.limits, {&from, &to, job.transitions});
  PlanSummary summary = plan_detail::write_plan(requests.from, requests.to, job, out);
  folder.publish();
  return summary;
}

PlanSummary plan_detail::measure_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job,
                                      const ProgressCallback& progress) {
  if (!job.memory) return hrw::measure_plan(from, to, job.keys, job.place, progress);
  return plan_in_memory(validate_request(from, job.place), validate_request(to, job.place), *job.memory, 1,
                        [](const PlanBuilder&) { return nullptr; },
                        [&](const KeyChunk& chunk, const Placement&, const Placement&) {
                          if (progress) progress({chunk.first + chunk.size(), 0, std::nullopt});
                        });
}

PlanSummary plan_detail::write_plan(const ValidRequest& from, const ValidRequest& to, const PlanJob& job,
                                    PlanOutputs& out) {
  std::optional<KeySource> source;
  if (!job.memory) source.emplace(job.keys);
  const bool has_bytes = source ? source->has_bytes() : job.memory->loads.bytes != nullptr;
  const bool has_requests = source ? source->has_requests() : job.memory->loads.requests != nullptr;
  const std::string& name = source ? source->name() : job.memory->name;
  if (job.limits.max_bytes_per_node && !has_bytes)
    throw InputError(fmt::format("{}: a per-node byte limit needs a bytes column in the keys", name));
  if (job.limits.node_bandwidth && !has_bytes)
    throw InputError(fmt::format("{}: a node bandwidth needs a bytes column in the keys", name));
  auto sink_for = [&](const PlanBuilder& plan) { return &out.start(plan.ids(), has_bytes, has_requests); };
  // The rows are made in input order and written by the threads in parallel, each at the
  // place reserved for it (PlanOutputs::take), so that no one thread writes everything.
  PerChunk<PlanOutputs::TakenRows> taken;
  PlanChunkSteps steps;
  steps.prepare = [&](std::size_t slots) { taken.resize(slots); };
  steps.after_chunk = [&](const ChunkWork& work) {
    out.take(taken[work]);
    if (job.progress)
      job.progress({work.chunk.first + work.chunk.size(), work.chunk.input_offset, source->total_bytes()});
  };
  steps.write = [&](const ChunkWork& work) { out.write_taken(taken[work]); };
  PlanSummary summary =
      source ? stream_plan(from, to, *source, {job.keys.chunk_keys}, job.batch_size, sink_for, steps)
             : plan_in_memory(from, to, *job.memory, job.batch_size, sink_for,
                              [&](const KeyChunk& chunk, const Placement&, const Placement&) {
                                out.flush();
                                if (job.progress) job.progress({chunk.first + chunk.size(), 0, std::nullopt});
                              });
  if (job.all_keys) summary = all_keys_summary(summary, *job.all_keys);
  out.publish(summary);
  return summary;
}

}  // namespace hrw
