// Plans computed in parts and merged: keys held in memory (a Python array, one partition of
// a Dask frame) are planned part by part, on any machine, and the parts' summaries add up
// to exactly the summary of one `hrw plan` over all the keys in partition order.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hrw/bulk.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"

namespace hrw {

struct PartOptions {
  PlaceOptions place;
  // B's request when B places by another rule (contract §8); nullopt: `place` for both.
  std::optional<PlaceOptions> place_to;
  std::uint64_t batch_size = 1000;
  // moves.csv rows of the parts before this one: its batch numbers continue from them.
  std::uint64_t first_row = 0;
  bool rows = false;  // also render this part's moves.csv rows
};

struct PlanPart {
  PlanSummary summary;               // of this part alone, checked like a whole plan's
  std::vector<std::uint64_t> moved;  // indices of the keys whose owner / replica set changed
  std::string header;                // moves.csv's header for the keys' load columns
  std::string rows;                  // moves.csv rows without the header, when asked
};

// Places the keys in both views (in place, chunk by chunk, on options.place.threads) and
// accounts for them with PlanBuilder, as `hrw plan` does.
PlanPart plan_part(const ClusterView& from, const ClusterView& to, const KeyView& keys,
                   const KeyLoads& loads, const PartOptions& options);
// The same for requests already validated (options_for_plan): options.place and
// options.place_to are not read.
PlanPart plan_part(const PlanRequests& requests, const KeyView& keys, const KeyLoads& loads,
                   const PartOptions& options);

// A part read from a file, or from one byte range of it (KeyInput::range), streamed chunk
// by chunk through the same accounting: its summary, and its moves.csv rows without their
// batch column (the part does not know its first row yet: number_move_rows adds them once
// it is known, docs/python.md "hrw.dask over files") or its moved keys with their loads,
// in input order.
struct FilePlanPart {
  PlanSummary summary;
  std::string header;                   // moves.csv's header for the keys' load columns
  std::string rows;                     // rows without "batch,", when asked for
  std::vector<std::uint64_t> row_starts;  // where each row starts in `rows`
  KeyBatch moved;                       // when asked for
  std::vector<std::uint64_t> moved_bytes;     // per moved key, when the input has bytes
  std::vector<std::uint64_t> moved_requests;  // per moved key, when it has requests
};
struct FilePartOutputs {
  bool rows = true;
  bool moved_keys = false;
};
FilePlanPart plan_file_part(const PlanRequests& requests, const KeyInput& keys, std::uint64_t batch_size,
                            FilePartOutputs outputs = {});

// A part's rows (FilePlanPart::rows, row_starts) with their batch numbers, the part's rows
// counted from `first_row` of the whole plan: row k is in batch k / batch_size + 1.
std::string number_move_rows(std::string_view rows, std::span<const std::uint64_t> row_starts,
                             std::uint64_t first_row, std::uint64_t batch_size);

// summary.json text back into a PlanSummary: what a part sends to the merge. InputError
// when the text is not a summary.
PlanSummary parse_summary_json(std::string_view text);

// The plan of all parts' keys: counts added exactly, then batches and fractions computed
// once. Every part must plan `from` -> `to` with the same replica count, batch size and
// load columns (InputError otherwise). No parts: the plan of no keys.
PlanSummary merge_summaries(const ClusterView& from, const ClusterView& to,
                            std::uint32_t replicas, std::uint64_t batch_size,
                            const std::vector<PlanSummary>& parts);
// The same for a plan whose views place by their own requests (contract §8).
PlanSummary merge_summaries(const ClusterView& from, const ClusterView& to, const PlaceOptions& from_place,
                            const PlaceOptions& to_place, std::uint64_t batch_size,
                            const std::vector<PlanSummary>& parts);

}  // namespace hrw
