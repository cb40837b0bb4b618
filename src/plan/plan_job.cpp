// hrw plan end to end: open the input and every output (so that an unwritable destination
// fails before hours of work), stream, check the accounting, then publish all-or-nothing.
#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "plan/scheduled_moves.hpp"

namespace hrw {

namespace {

KeyFormat format_of(const KeyInput& in) { return in.format.value_or(key_format_for(in.path)); }

}  // namespace

PlanSummary measure_plan(const ClusterView& from, const ClusterView& to, const KeyInput& keys,
                         const PlaceOptions& place) {
  KeySource source(keys.path, format_of(keys));
  PlanBuilder plan(from, to, place.replicas, 1);
  PerChunk<PlanChunk> counted;
  ChunkHandlers handlers;
  handlers.prepare = [&](std::size_t slots) { counted.resize(slots); };
  handlers.digest = [&](ChunkWork& work) { plan.digest(work, counted[work]); };
  handlers.consume = [&](ChunkWork& work) { plan.add(work, counted[work], nullptr); };
  stream_placements(source, {&from, &to}, {place, keys.chunk_keys}, handlers);
  return plan.finish(source.keys_read(), source.has_bytes(), source.has_requests());
}

PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job) {
  reference::check_replicas(from, job.place.replicas, job.place.distinct_label, job.place.allow_partial);
  reference::check_replicas(to, job.place.replicas, job.place.distinct_label, job.place.allow_partial);
  KeySource source(job.keys.path, format_of(job.keys));
  if (job.limits.max_bytes_per_node && !source.has_bytes())
    throw InputError(fmt::format("{}: a per-node byte limit needs a bytes column in the keys",
                                 source.name()));
  make_output_dir(job.out_dir);
  AtomicFile moves(job.out_dir + "/moves.csv");
  AtomicFile summary_file(job.out_dir + "/summary.json");
  std::optional<AtomicFile> svg_file;
  if (!job.svg.empty()) svg_file.emplace(job.svg);

  PlanBuilder plan(from, to, job.place.replicas, job.batch_size);
  const MoveCsv csv(plan.ids(), source.has_bytes(), source.has_requests());
  moves.write(csv.header());
  std::string rows;
  BatchedMoveRows batched(csv, job.batch_size, rows);
  std::optional<plan_detail::ScheduledMoves> scheduled;
  if (job.limits.any()) scheduled.emplace(job.out_dir, plan.ids().size(), job.limits);
  MoveSink* sink = scheduled ? static_cast<MoveSink*>(&*scheduled) : &batched;
  PerChunk<PlanChunk> counted;
  ChunkHandlers handlers;
  handlers.prepare = [&](std::size_t slots) { counted.resize(slots); };
  handlers.digest = [&](ChunkWork& work) { plan.digest(work, counted[work]); };
  handlers.consume = [&](ChunkWork& work) {
    plan.add(work, counted[work], sink);
    moves.write(rows);
    rows.clear();
    if (job.progress)
      job.progress({work.chunk.first + work.chunk.size(), work.chunk.input_offset, source.total_bytes()});
  };
  stream_placements(source, {&from, &to}, {job.place, job.keys.chunk_keys, job.times}, handlers);
  // Checked before anything is published: a plan that does not add up is never written.
  PlanSummary summary = plan.finish(source.keys_read(), source.has_bytes(), source.has_requests());
  if (scheduled) {
    summary.schedule = scheduled->emit([&](const plan_detail::ScheduledMove& m) {
      csv.append_row(rows, m.round + 1, m.key, m.from, m.to, m.bytes, m.requests);
      if (rows.size() >= (std::size_t{1} << 20)) moves.write(rows), rows.clear();
    });
    moves.write(rows);
    rows.clear();
    summary.batches = summary.schedule->rounds;
  }
  summary_file.write(summary_json(summary));
  if (svg_file) {
    svg_file->write(plan_svg(summary));
    commit_all({&moves, &*svg_file, &summary_file});
  } else {
    commit_all({&moves, &summary_file});
  }
  return summary;
}

}  // namespace hrw
