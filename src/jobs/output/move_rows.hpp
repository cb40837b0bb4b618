// moves.csv rows fed by a plan's accounting (private to the jobs layer; tests reach it
// through hrw_internal). MoveCsv, the row format, is public (hrw/output.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "hrw/key_source.hpp"
#include "hrw/output.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

// The unscheduled plan's rows: in input order, cut every `batch_size` rows (row k,
// counting from 0, is in batch k / batch_size + 1), appended to `out`. first_row: rows of
// the same plan before these (a plan computed in parts): the numbering continues.
class BatchedMoveRows : public MoveSink {
 public:
  BatchedMoveRows(const MoveCsv& csv, std::uint64_t batch_size, std::string& out,
                  std::uint64_t first_row = 0)
      : csv_(&csv), batch_size_(batch_size), out_(&out), rows_(first_row) {}
  void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override {
    csv_->append_row(*out_, rows_++ / batch_size_ + 1, chunk.keys[i], from, to, chunk.bytes_of(i),
                     chunk.requests_of(i));
  }

 private:
  const MoveCsv* csv_;
  std::uint64_t batch_size_;
  std::string* out_;
  std::uint64_t rows_ = 0;
};

}  // namespace hrw
