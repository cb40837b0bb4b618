// moves.csv rows fed by a plan's accounting (private to the jobs layer; tests reach it
// through hrw_internal). MoveCsv, the row format, is public (hrw/output.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hrw/key_source.hpp"
#include "hrw/output.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

// The batch of the unscheduled plan's row k (counting from 0): every `batch_size` rows.
inline std::uint64_t batch_of_row(std::uint64_t row, std::uint64_t batch_size) { return row / batch_size + 1; }

// The unscheduled plan's rows: in input order, cut every `batch_size` rows (batch_of_row),
// appended to `out`. first_row: rows of
// the same plan before these (a plan computed in parts): the numbering continues.
class BatchedMoveRows : public MoveSink {
 public:
  BatchedMoveRows(const MoveCsv& csv, std::uint64_t batch_size, std::string& out,
                  std::uint64_t first_row = 0)
      : csv_(&csv), batch_size_(batch_size), out_(&out), rows_(first_row) {}
  void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override {
    csv_->append_row(*out_, batch_of_row(rows_++, batch_size_), chunk.keys[i], from, to, chunk.bytes_of(i),
                     chunk.requests_of(i));
  }
  const MoveCsv* row_format() const override { return csv_; }
  void add_move(const KeyChunk&, std::size_t, std::uint32_t, std::uint32_t, std::string_view unbatched_row) override {
    const std::uint64_t batch = batch_of_row(rows_++, batch_size_);
    if (batch != batch_) {  // a batch's number is rendered once
      batch_ = batch;
      batch_text_ = std::to_string(batch) + ",";
    }
    out_->append(batch_text_);
    out_->append(unbatched_row);
  }

 private:
  const MoveCsv* csv_;
  std::uint64_t batch_size_;
  std::string* out_;
  std::uint64_t rows_ = 0;
  std::uint64_t batch_ = 0;  // whose number batch_text_ holds (0: none)
  std::string batch_text_;
};

// transitions.csv rows (docs/plan.md, "Transitions"): `batch,key,action,node,source`.
// Per key its copies, then its switch (the owner changes), then its retires (nodes of A's
// set not in B's); per batch all copies, then all switches, then all retires. Copies come
// in batch order (copy()); a key's switch and retires join the batch of its last copy, or,
// for a key without copies, the batch of the last copy written so far (1 when none).
class TransitionRows {
 public:
  explicit TransitionRows(const std::vector<std::string>& ids);  // PlanBuilder::ids()
  static std::string header() { return "batch,key,action,node,source\n"; }
  // A copy row: `node` receives the key from `source`. key_index: its input position.
  void copy(std::string& out, std::uint64_t batch, std::uint64_t key_index, std::string_view key,
            std::uint32_t node, std::uint32_t source);
  // A key whose holders change. `copies_to_come`: its copy rows not yet given to copy()
  // (0 when they were); its switch and retires wait for them.
  void key_changed(std::uint64_t key_index, std::string_view key, std::span<const std::uint32_t> from,
                   std::span<const std::uint32_t> to, std::uint64_t copies_to_come);
  // The last batch's switches and retires; std::logic_error when a key still waits.
  void finish(std::string& out);
  PlanSummary::TransitionCounts counts() const { return counts_; }

 private:
  struct Waiting {
    std::uint64_t copies;
    std::string key;
    std::vector<std::uint32_t> from, to;
  };
  void release(std::string_view key, std::span<const std::uint32_t> from, std::span<const std::uint32_t> to);
  void flush(std::string& out);

  std::vector<std::string> ids_;  // CSV-ready
  std::uint64_t batch_ = 0;      // of the last copy written; 0: none yet
  std::string switches_, retires_;  // the current batch's rows, written after its copies
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  PlanSummary::TransitionCounts counts_;
};


}  // namespace hrw
