// transitions.csv: every transition of every key whose holders change, in execution order
// (docs/plan.md, "Transitions").
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/csv.hpp"
#include "hrw/output.hpp"
#include "output/move_rows.hpp"

namespace hrw {

TransitionRows::TransitionRows(const std::vector<std::string>& ids) {
  for (const std::string& id : ids) ids_.push_back(csv::quoted(id));
}

void TransitionRows::flush(std::string& out) {
  out += switches_;
  out += retires_;
  switches_.clear();
  retires_.clear();
}

void TransitionRows::copy(std::string& out, std::uint64_t batch, std::uint64_t key_index, std::string_view key,
                          std::uint32_t node, std::uint32_t source) {
  if (batch < batch_) throw std::logic_error("transitions: copies out of batch order");
  // Switches and retires of keys without copies wait in batch 1 when nothing was written.
  if (batch != batch_ && (batch_ != 0 || batch != 1)) flush(out);
  batch_ = batch;
  fmt::format_to(std::back_inserter(out), "{},", batch);
  csv::append_field(out, key);
  out += ",copy,";
  out += ids_[node];
  out += ',';
  out += ids_[source];
  out += '\n';
  ++counts_.copies;
  const auto it = waiting_.find(key_index);
  if (it != waiting_.end() && --it->second.copies == 0) {
    release(it->second.key, it->second.from, it->second.to);
    waiting_.erase(it);
  }
}

void TransitionRows::key_changed(std::uint64_t key_index, std::string_view key,
                                 std::span<const std::uint32_t> from, std::span<const std::uint32_t> to,
                                 std::uint64_t copies_to_come) {
  if (copies_to_come == 0) return release(key, from, to);
  waiting_.emplace(key_index, Waiting{copies_to_come, std::string(key), {from.begin(), from.end()},
                                      {to.begin(), to.end()}});
}

void TransitionRows::release(std::string_view key, std::span<const std::uint32_t> from,
                             std::span<const std::uint32_t> to) {
  const std::uint64_t batch = std::max<std::uint64_t>(batch_, 1);
  auto row = [&](std::string& out, const char* action, std::uint32_t node, const std::string& source) {
    fmt::format_to(std::back_inserter(out), "{},", batch);
    csv::append_field(out, key);
    out += action;
    out += ids_[node];
    out += ',';
    out += source;
    out += '\n';
  };
  static const std::string none;
  if (!from.empty() && !to.empty() && from.front() != to.front()) {
    row(switches_, ",switch,", to.front(), ids_[from.front()]);
    ++counts_.switches;
  }
  for (std::uint32_t n : from)
    if (std::find(to.begin(), to.end(), n) == to.end()) {
      row(retires_, ",retire,", n, none);
      ++counts_.retires;
    }
}

void TransitionRows::finish(std::string& out) {
  if (!waiting_.empty())
    throw std::logic_error(fmt::format("transitions: {} key(s) still wait for copies", waiting_.size()));
  flush(out);
}

}  // namespace hrw
