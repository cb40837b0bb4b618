// hrw place end to end: open the input and every output (so that an unwritable
// destination fails before hours of work), stream, check, then publish all-or-nothing.
#include <optional>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "bulk/stream.hpp"

namespace hrw {

PlaceStats run_place(const ClusterView& view, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests) {
  return run_place(validate_request(view, job.place), job, has_bytes, has_requests);
}

PlaceStats run_place(const ValidRequest& request, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests) {
  const ClusterView& view = request.view();
  const std::uint32_t replicas = request.options().replicas;
  KeySource source(job.keys);
  has_bytes = source.has_bytes();
  has_requests = source.has_requests();
  // No placement output (job.out empty): the stats alone (hrw view show --keys).
  std::optional<AtomicFile> out;
  if (!job.out.empty()) out.emplace(job.out);
  std::optional<AtomicFile> stats_file;
  if (!job.stats.empty()) stats_file.emplace(job.stats);

  const PlacementCsv csv(view, replicas, has_bytes, has_requests);
  PlaceStats stats(view, replicas);
  if (out) out->write(csv.header());
  // Formatted and counted in the digest step (in parallel: formatting the rows is most of
  // a place's CPU time), written and folded in input order: the serial step costs one
  // write and O(nodes) additions per chunk, not work per key.
  // A file written whole gets each chunk's rows at the place the in-order step reserves,
  // copied by the threads in parallel (AtomicFile::reserve); a stream is written in order.
  struct Digested {
    std::string rows;
    std::optional<PlaceStats> stats;
    std::uint64_t offset = 0;
  };
  PerChunk<Digested> digested;
  ChunkHandlers handlers;
  handlers.prepare = [&](std::size_t slots) { digested.resize(slots); };
  handlers.digest = [&](ChunkWork& work) {
    Digested& d = digested[work];
    d.rows.clear();
    if (out) {
      csv.append_rows(d.rows, work.chunk, work.placements[0]);
      out->encode_piece(d.rows);
    }
    d.stats.emplace(view, replicas);
    d.stats->add(work.chunk, work.placements[0]);
  };
  handlers.consume = [&](ChunkWork& work) {
    Digested& d = digested[work];
    if (out && out->streamed())
      out->write(d.rows);
    else if (out)
      d.offset = out->reserve(d.rows.size());
    stats.add(*d.stats);
    if (job.progress)
      job.progress({work.chunk.first + work.chunk.size(), work.chunk.input_offset, source.total_bytes()});
  };
  handlers.write = [&](ChunkWork& work) {
    const Digested& d = digested[work];
    if (out && !out->streamed()) out->write_at(d.offset, d.rows);
  };
  stream_placements(source, {request}, {job.keys.chunk_keys}, handlers);
  if (stats.read().keys != source.keys_read())
    throw std::logic_error(fmt::format("place: {} keys read but {} placed", source.keys_read(),
                                       stats.read().keys));
  std::vector<AtomicFile*> outputs;
  if (out) outputs.push_back(&*out);
  if (stats_file) {
    stats_file->write(place_stats_json(stats, has_bytes, has_requests));
    outputs.push_back(&*stats_file);
  }
  commit_all(outputs);
  return stats;
}

}  // namespace hrw
