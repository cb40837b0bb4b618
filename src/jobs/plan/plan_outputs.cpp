#include "plan/plan_outputs.hpp"

namespace hrw::plan_detail {

namespace {

std::string prepared_dir(const PlanFolder& folder, const std::string& sub) {
  if (sub.empty()) return folder.build();
  const std::string dir = folder.file(sub + "/.");
  return dir.substr(0, dir.size() - 2);
}

}  // namespace

PlanOutputs::PlanOutputs(const PlanFolder& folder, const std::string& sub, const std::string& svg,
                         std::uint64_t batch_size, const ScheduleLimits& limits)
    : dir_(prepared_dir(folder, sub)), batch_size_(batch_size), limits_(limits), moves_(dir_ + "/moves.csv"),
      summary_(dir_ + "/summary.json") {
  if (svg.empty()) return;
  const std::string inside = folder.inside(svg);
  svg_.emplace(inside.empty() ? svg : inside);
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
