#include "hrw/key_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "hrw/bulk.hpp"
#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "hrw/input_file.hpp"
#include "csv_columns.hpp"
#include "key_source_impl.hpp"
#include "kernel_api.hpp"

namespace hrw {

KeyFormat parse_key_format(std::string_view text) {
  if (text == "lines") return KeyFormat::lines;
  if (text == "csv") return KeyFormat::csv;
  throw InputError(Setting::key_format, fmt::format(": unknown format {} (expected lines or csv)",
                                                   quote_for_message(text)));
}

KeyFormat key_format_for(std::string_view path) {
  // keys.csv.gz is CSV: a compression suffix names how the file is stored, not its format
  // (the content decides whether it is decoded: docs/errors.md, "Compressed files").
  for (std::string_view packed : {".gz", ".zst"})
    if (path.ends_with(packed)) path.remove_suffix(packed.size());
  if (path.ends_with(".csv")) return KeyFormat::csv;
  // JSON strings cannot hold every key (keys are bytes, JSON text is Unicode), so there is
  // no JSON keys format; reading such a file as lines would make each object one key.
  for (std::string_view ext : {".json", ".jsonl", ".ndjson"})
    if (path.ends_with(ext))
      throw InputError(fmt::format(
          "{}: JSON is not a keys format (keys are bytes: one per line, or CSV with a key "
          "column); to read this file as one key per line anyway, give the lines format",
          path));
  return KeyFormat::lines;
}

void KeyChunk::clear() {
  keys.clear();
  bytes.clear();
  requests.clear();
}

namespace io {

// Read in small windows with pread: the LF is usually a few bytes away, and the bytes past
// it are the next range's to read.
std::uint64_t record_start(const ByteReader& file, std::uint64_t pos, std::uint64_t quotes, bool csv,
                           std::uint64_t size, std::string_view loaded, std::uint64_t loaded_at) {
  if (pos == 0 || pos >= size) return std::min(pos, size);
  bool quoted = csv && (quotes & 1);  // the state before byte pos, and after byte pos - 1
  // Bytes [at, at + n) of the file, from at <= pos - 1: the record start after them, or 0
  // when there is none in them (a start found here is at least pos >= 1).
  auto scan = [&](const char* bytes, std::uint64_t at, std::size_t n) -> std::uint64_t {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = bytes[i];
      if (at + i == pos - 1) {  // byte pos - 1: only an LF matters (it changes no parity)
        if (c == '\n' && !quoted) return pos;
        continue;
      }
      if (csv && c == '"') quoted = !quoted;
      else if (c == '\n' && !quoted) return at + i + 1;
    }
    return 0;
  };
  std::uint64_t at = pos - 1;
  if (loaded_at <= at && at - loaded_at < loaded.size()) {
    const std::size_t skip = static_cast<std::size_t>(at - loaded_at);
    if (const std::uint64_t start = scan(loaded.data() + skip, at, loaded.size() - skip)) return start;
    at = loaded_at + loaded.size();
  }
  char window[4096];
  while (at < size) {
    const std::size_t n = file.read_at(at, window, sizeof window);
    if (n == 0) break;  // the file ended early (it shrank): no record starts before its end
    if (const std::uint64_t start = scan(window, at, n)) return start;
    at += n;
  }
  return size;
}

std::uint64_t count_byte(const ByteReader& file, std::uint64_t begin, std::uint64_t end, char byte) {
  std::vector<char> window(std::size_t{1} << 16);
  std::uint64_t count = 0;
  while (begin < end) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(window.size(), end - begin));
    const std::size_t n = file.read_at(begin, window.data(), want);
    if (n == 0) break;  // the file's end
    count += static_cast<std::uint64_t>(std::count(window.data(), window.data() + n, byte));
    begin += n;
  }
  return count;
}

}  // namespace io

using io::kNoColumn;

namespace {

io::CsvColumns read_header(io::CsvReader& csv, const std::string& name, const std::vector<std::string>& skipped) {
  if (!csv.next())
    throw InputError(fmt::format("{}: line 1: empty CSV: a header with a \"key\" column is required", name));
  io::CsvColumns cols;
  cols.count = csv.field_count();
  std::optional<std::string_view> unknown;  // the first column not read (after the key is found)
  std::string seen;
  for (std::size_t i = 0; i < cols.count; ++i) {
    std::string_view f = csv.field(i);
    // Spreadsheets start CSV files with a UTF-8 byte-order mark; it is not part of the name.
    if (i == 0 && f.starts_with("\xEF\xBB\xBF")) f.remove_prefix(3);
    if (io::skipped_column(f, skipped)) continue;
    std::size_t* slot = f == "key" ? &cols.key : f == "bytes" ? &cols.bytes
                      : f == "requests" ? &cols.requests : nullptr;
    if (!slot && !unknown) unknown = f;
    if (slot && *slot != kNoColumn)
      throw InputError(fmt::format("{}: line 1: column {} appears twice in the header", name,
                                   quote_for_message(f)));
    if (slot) *slot = i;
    if (!seen.empty()) seen += ", ";
    seen += quote_for_message(f);
  }
  if (cols.key == kNoColumn)
    throw InputError(fmt::format("{}: line 1: the CSV header has no \"key\" column (columns: {}{})",
                                 name, seen.substr(0, 300), seen.size() > 300 ? ", ..." : ""));
  if (unknown) io::refuse_unknown_column(name, *unknown, {"key", "bytes", "requests"});
  return cols;
}

io::RecordBounds record_bounds(const std::string& path, KeyFormat format, const ByteRange& range,
                               const std::vector<std::string>& skipped) {
  io::RecordBounds b;
  std::uint64_t first = 0;  // where the first record after the header starts
  io::ByteReader whole(path, 0, UINT64_MAX);
  const std::uint64_t size = *whole.size();
  if (format == KeyFormat::csv) {
    io::CsvReader csv(whole);
    csv.refuse_quotes_in_plain_fields();
    b.cols = read_header(csv, whole.name(), skipped);
    first = b.cols.first_record = whole.consumed();
    b.cols.first_line = csv.line();
  }
  if (range.begin > range.end)
    throw InputError(fmt::format("{}: byte range [{}, {}) is reversed", path, range.begin, range.end));
  const bool csv = format == KeyFormat::csv;
  b.begin = std::max(first, io::record_start(whole, range.begin, range.quotes_before_begin, csv, size));
  b.end = std::max(first, io::record_start(whole, range.end, range.quotes_before_end, csv, size));
  return b;
}

}  // namespace

std::uint64_t count_quotes(const std::string& path, std::uint64_t begin, std::uint64_t end) {
  const io::ByteReader file(path, begin, end);  // refuses what is not a regular file, or begin > end
  return io::count_byte(file, begin, end, '"');
}

const char* file_compression(const std::string& path) {
  // Its first bytes only: a ByteReader of a compressed file starts decoding it at once.
  const OpenedInput in = open_input(path, path);
  std::string head = in.first;
  while (head.size() < io::kMagicBytes) {
    char more[io::kMagicBytes];
    const ssize_t n = ::read(in.fd, more, io::kMagicBytes - head.size());
    if (n > 0) head.append(more, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;
  }
  ::close(in.fd);
  const io::Compression c = io::sniff_compression(head, path);
  return c == io::Compression::kNone ? nullptr : io::compression_name(c);
}

KeySource::Impl::Impl(const std::string& p, KeyFormat f, const std::vector<std::string>& s)
    : path(p), format(f), skipped(s), in(p) {
  if (format != KeyFormat::csv) return;
  cols = read_header(csv, in.name(), skipped);
  cols.first_record = in.consumed();
  cols.first_line = csv.line();
}

KeySource::Impl::Impl(const std::string& p, KeyFormat f, const ByteRange& r, const std::vector<std::string>& s)
    : path(p), format(f), range(r), skipped(s), bounds(record_bounds(p, f, r, s)), in(p, bounds.begin, bounds.end),
      cols(bounds.cols) {
  csv.refuse_quotes_in_plain_fields();
  if (!relative_lines()) csv.start_at_line(cols.first_line);
}

KeySource::Impl::Impl(const Impl& whole, ForRanges)
    : path(whole.path), format(whole.format), skipped(whole.skipped),
      in(whole.path, whole.cols.first_record, whole.cols.first_record),
      cols(whole.cols) {}

std::uint64_t KeySource::Impl::add_count(std::uint64_t& sum, const std::string& cell, const char* column,
                                         std::uint64_t line) const {
  const std::uint64_t value = io::parse_count(cell, column, in.name(), line);
  const auto total = exact_sum(sum, value);
  if (!total) throw sum_overflow(column, fmt::format("{}: line {}", in.name(), line));
  sum = *total;
  return value;
}

// The hot loop of `hrw plan`: the LFs of [line, e) as bit masks (a SIMD kernel, one
// piece of the buffer at a time), then every line they end copied straight into the
// batch's contiguous storage (one fixed-width copy for a short key), until the batch
// holds max_keys keys. Walking mask bits keeps the per-line work free of the load ->
// length -> next load chain of a memchr per line. Returns where the first line not taken
// starts.
// `scan_from` (>= line): where the LF search starts; the bytes before it are known to hold
// no LF, so a long line arriving in many reads is scanned once, not once per read.
const char* append_lines(const char* line, const char* scan_from, const char* e, KeyBatch& batch,
                         std::size_t max_keys) {
  constexpr std::size_t kPiece = 4096;  // bytes scanned per kernel call: masks stay in L1
  std::uint64_t lf[kPiece / 64];
  // The keys of [line, e) take at most e - line bytes: no capacity checks per key.
  batch.reserve(max_keys, batch.byte_size() + static_cast<std::size_t>(e - line));
  KeyBatch::Appender out(batch);
  for (const char* piece = scan_from; piece < e && out.size() < max_keys; piece += kPiece) {
    const std::size_t len = std::min<std::size_t>(kPiece, static_cast<std::size_t>(e - piece));
    kernels::lf_bits(piece, len, lf);
    for (std::size_t w = 0; w < (len + 63) / 64 && out.size() < max_keys; ++w) {
      const char* block = piece + 64 * w;
      for (std::uint64_t bits = lf[w]; bits && out.size() < max_keys; bits &= bits - 1) {
        const char* nl = block + std::countr_zero(bits);
        std::size_t key_len = static_cast<std::size_t>(nl - line);
        if (key_len && nl[-1] == '\r') --key_len;
        out.append(line, key_len);
        line = nl + 1;
      }
    }
  }
  return line;
}

void KeySource::Impl::next_lines(KeyChunk& chunk, std::size_t max_keys) {
  KeyBatch& batch = chunk.keys;
  // Appender::append may read 16 bytes from a line that starts just before end().
  static_assert(io::ByteReader::kReadSlack >= KeyBatch::kCopySlack);
  std::size_t scanned = 0;  // bytes of the unfinished line at cur() known to hold no LF
  while (batch.size() < max_keys) {
    const char* rest = append_lines(in.cur(), in.cur() + scanned, in.end(), batch, max_keys);
    in.consume(static_cast<std::size_t>(rest - in.cur()));
    if (batch.size() == max_keys) return;
    scanned = static_cast<std::size_t>(in.end() - in.cur());  // all scanned, no LF in it
    if (scanned > kMaxKeyBytes)
      throw InputError(fmt::format("{}: line {}: a key longer than the {} MiB limit", in.name(),
                                   keys + batch.size() + 1, kMaxKeyBytes >> 20));
    if (in.refill()) continue;
    // End of input: a last line without LF is still a key.
    std::size_t len = static_cast<std::size_t>(in.end() - in.cur());
    if (len == 0) return;
    const std::size_t taken = len;
    if (in.cur()[len - 1] == '\r') --len;
    batch.add(std::string_view(in.cur(), len));
    in.consume(taken);
    return;
  }
}

void KeySource::Impl::next_csv(KeyChunk& chunk, std::size_t max_keys) {
  while (chunk.keys.size() < max_keys && csv.next()) {
    const std::uint64_t line = csv.record_line();
    if (csv.field_count() != cols.count)
      throw InputError(fmt::format("{}: line {}: {} field(s), but the header has {}", in.name(),
                                   line, csv.field_count(), cols.count));
    chunk.keys.add(csv.field(cols.key));
    if (cols.bytes != kNoColumn)
      chunk.bytes.push_back(add_count(bytes_sum, csv.field(cols.bytes), "bytes", line));
    if (cols.requests != kNoColumn)
      chunk.requests.push_back(add_count(requests_sum, csv.field(cols.requests), "requests", line));
  }
}

KeySource::KeySource(const std::string& path, KeyFormat format, const std::vector<std::string>& ignored_columns)
    : impl_(std::make_unique<Impl>(path, format, ignored_columns)) {}

KeySource::KeySource(const std::string& path, KeyFormat format, const ByteRange& range,
                     const std::vector<std::string>& ignored_columns)
    : impl_(std::make_unique<Impl>(path, format, range, ignored_columns)) {}

KeySource::KeySource(const KeyInput& input)
    : impl_(input.range ? std::make_unique<Impl>(input.path, input.resolved_format(), *input.range,
                                                 input.ignored_columns)
                        : std::make_unique<Impl>(input.path, input.resolved_format(), input.ignored_columns)) {}

KeySource::~KeySource() = default;

void KeySource::Impl::raise_with_file_lines() const {
  ByteRange through = *range;
  through.begin = through.quotes_before_begin = 0;
  KeySource from_start(path, format, through, skipped);
  KeyChunk chunk;
  while (from_start.next(chunk, kDefaultChunkKeys)) {
  }
  throw std::logic_error(fmt::format("{}: a byte range failed, but the file read from its start did not", path));
}

bool KeySource::next(KeyChunk& chunk, std::size_t max_keys) {
  if (max_keys == 0) max_keys = 1;
  chunk.clear();
  // Sized once per chunk buffer (a no-op later), so appending keys never reallocates.
  chunk.keys.reserve(max_keys, std::min<std::size_t>(max_keys, kDefaultChunkKeys) * 16);
  chunk.first = impl_->keys;
  try {
    if (impl_->format == KeyFormat::lines)
      impl_->next_lines(chunk, max_keys);
    else
      impl_->next_csv(chunk, max_keys);
  } catch (const InputError&) {
    if (impl_->relative_lines()) impl_->raise_with_file_lines();
    throw;
  }
  impl_->keys += chunk.size();
  chunk.input_offset = impl_->in.file_consumed();
  return !chunk.keys.empty();
}

bool KeySource::has_bytes() const { return impl_->cols.bytes != kNoColumn; }
bool KeySource::has_requests() const { return impl_->cols.requests != kNoColumn; }
const std::string& KeySource::name() const { return impl_->in.name(); }
std::uint64_t KeySource::keys_read() const { return impl_->keys; }
std::optional<std::uint64_t> KeySource::total_bytes() const { return impl_->in.file_size(); }

}  // namespace hrw
