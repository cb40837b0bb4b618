// The files of a plan: DIR/moves.csv, DIR/summary.json and the optional SVG. Opened up
// front, so that an unwritable destination fails before any key is read; published
// together, after the accounting check, so summary.json never exists without its moves.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hrw/atomic_file.hpp"
#include "hrw/output.hpp"
#include "hrw/plan.hpp"
#include "plan/scheduled_moves.hpp"
#include "plan/plan_builder.hpp"
#include "output/move_rows.hpp"

namespace hrw::plan_detail {

class PlanOutputs {
 public:
  PlanOutputs(const std::string& dir, const std::string& svg, std::uint64_t batch_size,
              const ScheduleLimits& limits);

  // Once the union ids are known (PlanBuilder::ids()): writes the header and returns
  // where the moves go, batched rows or (with limits) the schedule's spill.
  MoveSink& start(const std::vector<std::string>& ids, bool with_bytes, bool with_requests);
  // Writes the rows made so far (the consume step calls it per chunk).
  void flush();
  // With limits, writes the rounds and fills summary.schedule; then writes summary.json
  // and the SVG and commits every file at once.
  void publish(PlanSummary& summary);

 private:
  std::string dir_;
  std::uint64_t batch_size_;
  ScheduleLimits limits_;
  AtomicFile moves_;
  AtomicFile summary_;
  std::optional<AtomicFile> svg_;
  std::optional<MoveCsv> csv_;
  std::string rows_;
  std::optional<BatchedMoveRows> batched_;
  std::optional<ScheduledMoves> scheduled_;
};

}  // namespace hrw::plan_detail
