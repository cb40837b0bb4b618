// The bulk commands end to end: open the input, open every output (so that an unwritable
// destination fails before hours of work), stream, check, then publish all-or-nothing.
#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/plan.hpp"
#include "hrw/progress.hpp"
#include "hrw/reference.hpp"

namespace hrw {

namespace {

KeyFormat format_of(const KeyInput& in) { return in.format ? *in.format : key_format_for(in.path); }

void check_request(const ClusterView& view, const PlaceOptions& o) {
  reference::check_replicas(view, o.replicas, o.distinct_label, o.allow_partial);
}

}  // namespace

PlaceStats run_place(const ClusterView& view, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests) {
  check_request(view, job.place);
  KeySource source(job.keys.path, format_of(job.keys));
  has_bytes = source.has_bytes();
  has_requests = source.has_requests();
  AtomicFile out(job.out);
  std::optional<AtomicFile> stats_file;
  if (!job.stats.empty()) stats_file.emplace(job.stats);

  const PlacementCsv csv(view, job.place.replicas);
  PlaceStats stats(view, job.place.replicas);
  Progress progress(job.progress, source.total_bytes());
  out.write(csv.header());
  ChunkHandlers handlers;
  // Formatting the rows is most of a place's CPU time: it runs in parallel.
  handlers.digest = [&](ChunkWork& work) {
    work.text.clear();
    csv.append_rows(work.text, work.chunk, work.placements[0]);
  };
  handlers.consume = [&](ChunkWork& work) {
    out.write(work.text);
    stats.add(work.chunk, work.placements[0]);
    progress.update(work.chunk.first + work.chunk.size(), work.chunk.input_offset);
  };
  stream_placements(source, {&view}, {job.place, job.keys.chunk_keys}, handlers);
  progress.finish();
  if (stats.read().keys != source.keys_read())
    throw std::logic_error(fmt::format("place: {} keys read but {} placed", source.keys_read(),
                                       stats.read().keys));
  if (stats_file) {
    stats_file->write(stats.to_json(has_bytes, has_requests));
    commit_all({&out, &*stats_file});
  } else {
    out.commit();
  }
  return stats;
}

PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job) {
  check_request(from, job.place);
  check_request(to, job.place);
  KeySource source(job.keys.path, format_of(job.keys));
  make_output_dir(job.out_dir);
  AtomicFile moves(job.out_dir + "/moves.csv");
  AtomicFile summary_file(job.out_dir + "/summary.json");
  std::optional<AtomicFile> svg_file;
  if (!job.svg.empty()) svg_file.emplace(job.svg);

  PlanBuilder plan(from, to, job.place.replicas, job.batch_size);
  Progress progress(job.progress, source.total_bytes());
  moves.write(PlanBuilder::header());
  ChunkHandlers handlers;
  handlers.digest = [&](ChunkWork& work) { plan.digest(work); };
  std::string rows;
  handlers.consume = [&](ChunkWork& work) {
    plan.add(work, &rows);
    moves.write(rows);
    rows.clear();
    progress.update(work.chunk.first + work.chunk.size(), work.chunk.input_offset);
  };
  stream_placements(source, {&from, &to}, {job.place, job.keys.chunk_keys, job.times}, handlers);
  progress.finish();
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
