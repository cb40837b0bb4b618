#include "key_ranges.hpp"

#include <algorithm>

#include <tbb/parallel_for.h>

#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "key_source_impl.hpp"

namespace hrw::io {

class KeyRanges::Reader {
 public:
  explicit Reader(const KeySource::Impl& whole) : impl(whole, KeySource::Impl::ForRanges{}) {}
  KeySource::Impl impl;
};

std::unique_ptr<KeyRanges> KeyRanges::open(KeySource& source, std::uint64_t range_bytes, std::size_t readers) {
  const KeySource::Impl& whole = *source.impl_;
  if (whole.range || whole.path == "-" || !whole.in.size() || whole.keys != 0) return nullptr;
  return std::unique_ptr<KeyRanges>(new KeyRanges(source, range_bytes, readers));
}

KeyRanges::KeyRanges(KeySource& source, std::uint64_t range_bytes, std::size_t readers)
    : source_(source), size_(*source.impl_->in.size()) {
  const KeySource::Impl& whole = *source.impl_;
  range_bytes = std::max<std::uint64_t>(range_bytes, 1);
  for (std::uint64_t cut = first_record(); cut < size_; cut += std::min(range_bytes, size_ - cut))
    cuts_.push_back(cut);
  cuts_.push_back(size_);
  if (whole.format == KeyFormat::csv) {
    // Counted from the first record, where the parse is outside quotes, so that a quote
    // the header may hold (a whole-file read allows it there) counts for nothing.
    quotes_.assign(cuts_.size(), 0);
    tbb::parallel_for(std::size_t{0}, count(), [&](std::size_t k) {
      quotes_[k + 1] = count_byte(whole.in, cuts_[k], cuts_[k + 1], '"');
    });
    for (std::size_t k = 1; k < quotes_.size(); ++k) quotes_[k] += quotes_[k - 1];
  }
  for (std::size_t r = 0; r < readers; ++r) readers_.push_back(std::make_unique<Reader>(whole));
}

KeyRanges::~KeyRanges() = default;

std::uint64_t KeyRanges::first_record() const { return source_.impl_->cols.first_record; }

RangeRead KeyRanges::read(std::size_t reader, std::size_t k, KeyChunk& chunk) const {
  KeySource::Impl& in = readers_.at(reader)->impl;
  const bool csv = in.format == KeyFormat::csv;
  const std::uint64_t quotes_begin = csv ? quotes_[k] : 0, quotes_end = csv ? quotes_[k + 1] : 0;
  RangeRead out;
  chunk.clear();
  try {
    // One pread brings the byte before the cut, the range and kTail bytes past its end cut,
    // where both record starts are found unless a record straddles a cut by more than that
    // (record_start then reads on); the parse starts on those bytes without reading again.
    constexpr std::uint64_t kTail = 4096;
    const std::uint64_t from = cuts_[k] - (cuts_[k] > 0);
    const std::string_view loaded = in.in.load(from, static_cast<std::size_t>(cuts_[k + 1] + kTail - from));
    in.bounds.begin =
        std::max(first_record(), record_start(in.in, cuts_[k], quotes_begin, csv, size_, loaded, from));
    in.bounds.end =
        std::max(first_record(), record_start(in.in, cuts_[k + 1], quotes_end, csv, size_, loaded, from));
    in.in.seek(in.bounds.begin, in.bounds.end);
    in.keys = in.bytes_sum = in.requests_sum = 0;
    // Keys are taken in steps until the range ends (a range's keys are one chunk, however
    // many there are: at most one per byte).
    constexpr std::size_t kStep = kDefaultChunkKeys;
    for (std::size_t before = 0;; before = chunk.size()) {
      if (csv)
        in.next_csv(chunk, before + kStep);
      else
        in.next_lines(chunk, before + kStep);
      if (chunk.size() < before + kStep) break;
    }
  } catch (const InputError&) {
    out.failed = true;
    return out;
  }
  chunk.first = 0;
  chunk.input_offset = in.bounds.end;
  out.bytes_sum = in.bytes_sum;
  out.requests_sum = in.requests_sum;
  return out;
}

bool KeyRanges::take(const RangeRead& range, KeyChunk& chunk) {
  if (range.failed) return false;
  const auto bytes = exact_sum(bytes_sum_, range.bytes_sum);
  const auto requests = exact_sum(requests_sum_, range.requests_sum);
  if (!bytes || !requests) return false;
  bytes_sum_ = *bytes;
  requests_sum_ = *requests;
  chunk.first = keys_;
  keys_ += chunk.size();
  return true;
}

void KeyRanges::resume(std::size_t k) {
  KeySource::Impl& whole = *source_.impl_;
  whole.keys = keys_;
  whole.bytes_sum = bytes_sum_;
  whole.requests_sum = requests_sum_;
  if (k >= count()) return whole.in.seek(size_);
  const bool csv = whole.format == KeyFormat::csv;
  const std::uint64_t begin =
      std::max(first_record(), record_start(whole.in, cuts_[k], csv ? quotes_[k] : 0, csv, size_));
  whole.in.seek(begin);
  // Lines are numbered by key in the lines format; a CSV record's line counts the LFs
  // before it, quoted ones included (CsvReader).
  if (csv) whole.csv.start_at_line(whole.cols.first_line + count_byte(whole.in, first_record(), begin, '\n'));
}

}  // namespace hrw::io
