#include "plan/plan_outputs.hpp"
#include "hrw/view_json.hpp"

namespace hrw::plan_detail {

namespace {

std::string prepared_dir(const PlanFolder& folder, const std::string& sub) {
  if (sub.empty()) return folder.build();
  const std::string dir = folder.file(sub + "/.");
  return dir.substr(0, dir.size() - 2);
}

}  // namespace

PlanOutputs::PlanOutputs(const PlanFolder& folder, const std::string& sub, const std::string& svg,
                         std::uint64_t batch_size, const ScheduleLimits& limits, const PlanFiles& files)
    : dir_(prepared_dir(folder, sub)), batch_size_(batch_size), limits_(limits), files_(files),
      moves_(dir_ + "/moves.csv"), summary_(dir_ + "/summary.json") {
  if (files.from) from_json_.emplace(dir_ + "/from.json");
  if (files.to) to_json_.emplace(dir_ + "/to.json");
  if (files.transitions) transitions_.emplace(dir_ + "/transitions.csv");
  if (svg.empty()) return;
  const std::string inside = folder.inside(svg);
  svg_.emplace(inside.empty() ? svg : inside);
}

MoveSink& PlanOutputs::start(const std::vector<std::string>& ids, bool with_bytes, bool with_requests) {
  csv_.emplace(ids, with_bytes, with_requests);
  moves_.write(csv_->header());
  if (limits_.any())
    sink_ = &scheduled_.emplace(dir_, ids.size(), limits_);
  else
    sink_ = &batched_.emplace(*csv_, batch_size_, rows_);
  if (!transitions_) return *sink_;
  transition_rows_.emplace(ids);
  transitions_->write(TransitionRows::header());
  return tap_;
}

void PlanOutputs::Tap::add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) {
  out_->sink_->add_move(chunk, i, from, to);
  if (!out_->scheduled_)  // with limits the copies are written round by round, in publish()
    out_->transition_rows_->copy(out_->transition_text_, rows_ / out_->batch_size_ + 1, chunk.first + i,
                                 chunk.keys[i], to, from);
  ++rows_;
  ++key_copies_;
}

void PlanOutputs::Tap::key_changed(const KeyChunk& chunk, std::size_t i, std::span<const std::uint32_t> from,
                                   std::span<const std::uint32_t> to) {
  out_->transition_rows_->key_changed(chunk.first + i, chunk.keys[i], from, to,
                                      out_->scheduled_ ? key_copies_ : 0);
  key_copies_ = 0;
}

void PlanOutputs::take(TakenRows& taken) {
  // Pieces of 64 KiB and their strings' room stay below glibc's mmap threshold (128 KiB):
  // heap memory, reused, where bigger strings would be mapped and faulted in anew each
  // time they grow.
  constexpr std::size_t kTakeBytes = std::size_t{1} << 16;
  taken.moves.clear();
  taken.transitions.clear();
  if (rows_.size() + transition_text_.size() < kTakeBytes) return;
  // The made rows go on in the taken strings' old buffers, given room once.
  std::swap(rows_, taken.moves);
  rows_.reserve(kTakeBytes + kTakeBytes / 4);
  taken.moves_at = moves_.reserve(taken.moves.size());
  if (!transitions_) return;
  std::swap(transition_text_, taken.transitions);
  transition_text_.reserve(kTakeBytes + kTakeBytes / 4);
  taken.transitions_at = transitions_->reserve(taken.transitions.size());
}

void PlanOutputs::write_taken(const TakenRows& taken) const {
  if (!taken.moves.empty()) moves_.write_at(taken.moves_at, taken.moves);
  if (!taken.transitions.empty()) transitions_->write_at(taken.transitions_at, taken.transitions);
}

void PlanOutputs::flush() {
  moves_.write(rows_);
  rows_.clear();
  if (transitions_) {
    transitions_->write(transition_text_);
    transition_text_.clear();
  }
}

void PlanOutputs::publish(PlanSummary& summary) {
  if (scheduled_) {
    summary.schedule = scheduled_->emit([&](const ScheduledMove& m) {
      csv_->append_row(rows_, m.round + 1, m.key, m.from, m.to, m.bytes, m.requests);
      if (transition_rows_)
        transition_rows_->copy(transition_text_, m.round + 1, m.key_index, m.key, m.to, m.from);
      if (rows_.size() + transition_text_.size() >= (std::size_t{1} << 20)) flush();
    });
    // Keys that change with no copy switch or retire in round 1 (docs/plan.md, "DIR/summary.json").
    if (summary.schedule->rounds == 0 && summary.moved.keys > 0) {
      summary.schedule->rounds = 1;
      summary.schedule->per_round.push_back(RoundStats{.round = 1});
    }
    summary.batches = summary.schedule->rounds;
  }
  if (transition_rows_) {
    transition_rows_->finish(transition_text_);
    summary.transitions = transition_rows_->counts();
  }
  flush();
  summary_.write(summary_json(summary));
  // The views exactly as used: one call site for the view file (docs/plan.md, "The plan folder").
  if (from_json_) from_json_->write(view_json(*files_.from));
  if (to_json_) to_json_->write(view_json(*files_.to));
  std::vector<AtomicFile*> all = {&moves_, &summary_};
  for (auto* f : {&from_json_, &to_json_, &transitions_, &svg_})
    if (*f) all.push_back(&**f);
  if (svg_) svg_->write(plan_svg(summary));
  commit_all(all);
}

}  // namespace hrw::plan_detail
