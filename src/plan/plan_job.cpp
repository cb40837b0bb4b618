// hrw plan end to end: open the input and every output (so that an unwritable destination
// fails before hours of work), stream, check the accounting, then publish all-or-nothing.
#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"

namespace hrw {

namespace {

KeyFormat format_of(const KeyInput& in) { return in.format.value_or(key_format_for(in.path)); }

}  // namespace

PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job) {
  reference::check_replicas(from, job.place.replicas, job.place.distinct_label, job.place.allow_partial);
  reference::check_replicas(to, job.place.replicas, job.place.distinct_label, job.place.allow_partial);
  KeySource source(job.keys.path, format_of(job.keys));
  make_output_dir(job.out_dir);
  AtomicFile moves(job.out_dir + "/moves.csv");
  AtomicFile summary_file(job.out_dir + "/summary.json");
  std::optional<AtomicFile> svg_file;
  if (!job.svg.empty()) svg_file.emplace(job.svg);

  PlanBuilder plan(from, to, job.place.replicas, job.batch_size);
  const MoveCsv csv(plan.ids(), false, false);
  moves.write(csv.header());
  std::string rows;
  BatchedMoveRows sink(csv, job.batch_size, rows);
  PerChunk<PlanChunk> counted;
  ChunkHandlers handlers;
  handlers.prepare = [&](std::size_t slots) { counted.resize(slots); };
  handlers.digest = [&](ChunkWork& work) { plan.digest(work, counted[work]); };
  handlers.consume = [&](ChunkWork& work) {
    plan.add(work, counted[work], &sink);
    moves.write(rows);
    rows.clear();
    if (job.progress)
      job.progress({work.chunk.first + work.chunk.size(), work.chunk.input_offset, source.total_bytes()});
  };
  stream_placements(source, {&from, &to}, {job.place, job.keys.chunk_keys, job.times}, handlers);
  // Checked before anything is published: a plan that does not add up is never written.
  const PlanSummary summary = plan.finish(source.keys_read(), source.has_bytes(), source.has_requests());
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
