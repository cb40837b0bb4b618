#include "plan/plan_outputs.hpp"

namespace hrw::plan_detail {

namespace {

std::string prepared_dir(const std::string& dir) {
  make_output_dir(dir);
  return dir;
}

}  // namespace

PlanOutputs::PlanOutputs(const std::string& dir, const std::string& svg, std::uint64_t batch_size,
                         const ScheduleLimits& limits)
    : dir_(prepared_dir(dir)), batch_size_(batch_size), limits_(limits), moves_(dir + "/moves.csv"),
      summary_(dir + "/summary.json") {
  if (!svg.empty()) svg_.emplace(svg);
}

MoveSink& PlanOutputs::start(const std::vector<std::string>& ids, bool with_bytes, bool with_requests) {
  csv_.emplace(ids, with_bytes, with_requests);
  moves_.write(csv_->header());
  if (limits_.any()) return scheduled_.emplace(dir_, ids.size(), limits_);
  return batched_.emplace(*csv_, batch_size_, rows_);
}

void PlanOutputs::flush() {
  moves_.write(rows_);
  rows_.clear();
}

void PlanOutputs::publish(PlanSummary& summary) {
  if (scheduled_) {
    summary.schedule = scheduled_->emit([&](const ScheduledMove& m) {
      csv_->append_row(rows_, m.round + 1, m.key, m.from, m.to, m.bytes, m.requests);
      if (rows_.size() >= (std::size_t{1} << 20)) flush();
    });
    summary.batches = summary.schedule->rounds;
  }
  flush();
  summary_.write(summary_json(summary));
  if (svg_) {
    svg_->write(plan_svg(summary));
    commit_all({&moves_, &*svg_, &summary_});
  } else {
    commit_all({&moves_, &summary_});
  }
}

}  // namespace hrw::plan_detail
