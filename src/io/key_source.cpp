#include "hrw/key_source.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>

#include <tbb/parallel_for.h>

#include <fmt/format.h>

#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "byte_reader.hpp"
#include "csv_reader.hpp"
#include "kernel_api.hpp"

namespace hrw {

KeyFormat parse_key_format(std::string_view text) {
  if (text == "lines") return KeyFormat::lines;
  if (text == "csv") return KeyFormat::csv;
  throw InputError(Setting::key_format, fmt::format(": unknown format {} (expected lines or csv)",
                                                   quote_for_message(text)));
}

KeyFormat key_format_for(std::string_view path) {
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

namespace {

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

struct CsvColumns {
  std::size_t key = kNoColumn, bytes = kNoColumn, requests = kNoColumn, count = 0;
};

CsvColumns read_header(io::CsvReader& csv, const std::string& name) {
  if (!csv.next())
    throw InputError(fmt::format("{}: line 1: empty CSV: a header with a \"key\" column is required", name));
  CsvColumns cols;
  cols.count = csv.field_count();
  std::string seen;
  for (std::size_t i = 0; i < cols.count; ++i) {
    std::string_view f = csv.field(i);
    // Spreadsheets start CSV files with a UTF-8 byte-order mark; it is not part of the name.
    if (i == 0 && f.starts_with("\xEF\xBB\xBF")) f.remove_prefix(3);
    std::size_t* slot = f == "key" ? &cols.key : f == "bytes" ? &cols.bytes
                      : f == "requests" ? &cols.requests : nullptr;
    if (slot && *slot != kNoColumn)
      throw InputError(fmt::format("{}: line 1: column {} appears twice in the header", name,
                                   quote_for_message(f)));
    if (slot) *slot = i;
    if (i) seen += ", ";
    seen += quote_for_message(f);
  }
  if (cols.key == kNoColumn)
    throw InputError(fmt::format("{}: line 1: the CSV header has no \"key\" column (columns: {}{})",
                                 name, seen.substr(0, 300), seen.size() > 300 ? ", ..." : ""));
  return cols;
}

}  // namespace

struct KeySource::Impl {
  std::string path;
  io::ByteReader in;
  KeyFormat format;
  io::CsvReader csv{in};
  CsvColumns cols;
  std::uint64_t keys = 0;
  // Records starting at or past this offset belong to the next range (ByteRange::end).
  std::uint64_t range_end = static_cast<std::uint64_t>(-1);
  // csv: where the first record after the header starts, and its line.
  std::uint64_t header_end = 0, header_next_line = 1;
  // Every total a report prints (per node, moved, stayed) is a part of these sums, so
  // refusing an input whose sums overflow keeps every total right.
  std::uint64_t bytes_sum = 0, requests_sum = 0;

  Impl(const std::string& p, KeyFormat f) : path(p), in(p), format(f) {
    if (format == KeyFormat::csv) {
      cols = read_header(csv, in.name());
      header_end = in.consumed();
      header_next_line = csv.next_record_line();
    }
  }

  void seek(const ByteRange& range) {
    const bool after_header = range.begin < header_end;
    const std::uint64_t begin = after_header ? header_end : range.begin;
    in.seek(begin, std::max(range.end, begin));
    range_end = range.end;
    keys = range.first_key;
    bytes_sum = range.bytes_before;
    requests_sum = range.requests_before;
    if (format == KeyFormat::csv) csv.restart_at_line(after_header ? header_next_line : range.first_line);
  }

  void next_lines(KeyChunk& chunk, std::size_t max_keys);
  std::uint64_t add_count(std::uint64_t& sum, const std::string& cell, const char* column,
                          std::uint64_t line) const {
    const std::uint64_t value = io::parse_count(cell, column, in.name(), line);
    const auto total = exact_sum(sum, value);
    if (!total) throw sum_overflow(column, fmt::format("{}: line {}", in.name(), line));
    sum = *total;
    return value;
  }
  void next_csv(KeyChunk& chunk, std::size_t max_keys);
};

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
  bool last = false;        // the range's last line, which ends past the range's end
  while (batch.size() < max_keys) {
    // Lines that start before range_end are this range's; the LFs are scanned up to it.
    const char* stop = in.end();
    if (!last) {
      const std::uint64_t left = range_end - in.consumed();
      if (left == 0) return;
      if (left < static_cast<std::uint64_t>(in.end() - in.cur())) stop = in.cur() + left;
    }
    const char* rest = append_lines(in.cur(), in.cur() + scanned, stop, batch, max_keys);
    in.consume(static_cast<std::size_t>(rest - in.cur()));
    if (batch.size() == max_keys) return;
    if (stop != in.end()) {
      if (in.cur() == stop) return;  // the range ends at a line start
      scanned = static_cast<std::size_t>(stop - in.cur());
      last = true;
      max_keys = batch.size() + 1;
      continue;
    }
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
  while (chunk.keys.size() < max_keys && in.consumed() < range_end && csv.next()) {
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

namespace {

// What one pass over a piece [begin, end) of a key file found: its LFs, its quotes, and the
// first record end at or after begin - 1 (where the range after the cut begins).
struct PieceScan {
  std::uint64_t lfs = 0;       // LF bytes in [begin, end)
  std::uint64_t quotes = 0;    // '"' bytes in [begin, end) (csv)
  std::uint64_t records = 0;   // csv: LFs outside quotes in [begin, end)
  std::optional<std::uint64_t> first_end;  // offset of the first record-ending LF >= begin - 1
  std::uint64_t lfs_to_first = 0;  // LFs in [begin, *first_end]
  bool bad_quote = false;      // csv: a quote that opens (even parity) but starts no field
};

// Reads [begin, end) of `fd` in blocks: fn(offset, bytes, n).
template <class Fn>
void for_each_block(int fd, const std::string& name, std::uint64_t begin, std::uint64_t end, Fn&& fn) {
  constexpr std::size_t kBlock = std::size_t{1} << 18;
  std::vector<char> buf(kBlock);
  while (begin < end) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - begin));
    const ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(begin));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(errno)));
    if (n == 0) throw InputError(fmt::format("{}: cannot read: the file shrank while it was split", name));
    fn(begin, buf.data(), static_cast<std::size_t>(n));
    begin += static_cast<std::uint64_t>(n);
  }
}

// Pass 1: LFs (the lines reader's SIMD scan) and quotes of [begin, end), and the first LF at
// or after `from` (begin - 1, or begin for the first piece).
PieceScan count_piece(int fd, const std::string& name, std::uint64_t from, std::uint64_t begin,
                      std::uint64_t end, bool csv) {
  PieceScan s;
  std::uint64_t lf[4096 / 64];
  for_each_block(fd, name, from, end, [&](std::uint64_t at, const char* p, std::size_t n) {
    for (std::size_t off = 0; off < n; off += 4096) {
      const std::size_t len = std::min<std::size_t>(4096, n - off);
      kernels::lf_bits(p + off, len, lf);
      for (std::size_t w = 0; w < (len + 63) / 64; ++w) {
        std::uint64_t bits = lf[w];
        const std::uint64_t base = at + off + 64 * w;
        if (base < begin) bits &= ~std::uint64_t{0} << (begin - base);  // the byte before begin
        const std::uint64_t found = static_cast<std::uint64_t>(std::popcount(bits));
        if (!s.first_end && lf[w]) {  // begin - 1 may be the first LF itself
          s.first_end = base + static_cast<std::uint64_t>(std::countr_zero(lf[w]));
          s.lfs_to_first = *s.first_end >= begin ? 1 : 0;
        }
        s.lfs += found;
      }
    }
    if (csv) {
      const char* q = p;
      const char* e = p + n;
      if (at < begin) ++q;
      while ((q = static_cast<const char*>(std::memchr(q, '"', static_cast<std::size_t>(e - q))))) {
        ++s.quotes;
        ++q;
      }
    }
  });
  return s;
}

// Pass 2 (csv, a piece holding quotes or starting inside quotes): the record ends (LFs at
// even parity) with `odd` the parity at `from`, and the check that every opening quote
// starts a field (after a comma, an LF or at the first record).
void scan_quoted_piece(int fd, const std::string& name, std::uint64_t from, std::uint64_t begin,
                       std::uint64_t end, bool odd, char prev, PieceScan& s) {
  s.first_end.reset();
  s.records = 0;
  s.lfs_to_first = 0;
  std::uint64_t lfs = 0;
  for_each_block(fd, name, from, end, [&](std::uint64_t at, const char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = p[i];
      const bool counted = at + i >= begin;
      if (c == '"') {
        // A quote at even parity opens a field, or (after a closing quote) is the second
        // half of "".
        if (!odd && counted && prev != ',' && prev != '\n' && prev != '"') s.bad_quote = true;
        odd = !odd;
      } else if (c == '\n') {
        lfs += counted;
        if (!odd) {
          s.records += counted;
          if (!s.first_end) {
            s.first_end = at + i;
            s.lfs_to_first = lfs;
          }
        }
      }
      prev = c;
    }
  });
}

}  // namespace

std::vector<ByteRange> split_key_file(const std::string& path, KeyFormat format, std::size_t parts) {
  KeySource source(path, format);
  if (!source.splittable())
    throw InputError(fmt::format(
        "{}: cannot be split into byte ranges: stdin, pipes and FIFOs are read in order", source.name()));
  const KeySource::Impl& im = *source.impl_;
  const bool csv = format == KeyFormat::csv;
  const std::uint64_t size = *im.in.size();
  const std::uint64_t h = im.header_end;  // data starts here
  const std::uint64_t data = size - std::min(size, h);
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(std::max<std::size_t>(parts, 1), data));
  ByteRange whole{0, size, 0, 1};
  if (n <= 1) return {whole};

  std::vector<std::uint64_t> cut(n + 1);
  for (std::size_t k = 0; k <= n; ++k)
    cut[k] = h + static_cast<std::uint64_t>((static_cast<unsigned __int128>(data) * k) / n);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::vector<PieceScan> scans(n);
  std::vector<char> before(n, '\n');  // the byte before each piece (the header's LF for piece 0)
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
    const std::uint64_t from = k ? cut[k] - 1 : cut[k];
    scans[k] = count_piece(fd, im.in.name(), from, cut[k], cut[k + 1], csv);
    if (k) for_each_block(fd, im.in.name(), from, cut[k], [&](std::uint64_t, const char* p, std::size_t) { before[k] = *p; });
  });
  if (csv) {
    std::vector<std::uint64_t> quotes_before(n, 0);  // '"' bytes in [h, cut[k])
    for (std::size_t k = 1; k < n; ++k) quotes_before[k] = quotes_before[k - 1] + scans[k - 1].quotes;
    std::atomic<bool> bad{false};
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
      PieceScan& s = scans[k];
      // The parity at `from` (cut[k] - 1): the quotes before it.
      const std::uint64_t from = k ? cut[k] - 1 : cut[k];
      const bool odd_at_cut = (quotes_before[k] & 1) != 0;
      const bool odd = ((quotes_before[k] - (k && before[k] == '"')) & 1) != 0;  // at `from`
      if (s.quotes == 0 && !odd_at_cut && odd == odd_at_cut) {
        s.records = s.lfs;  // no quote, outside quotes: every LF ends a record
      } else if (s.quotes == 0 && odd_at_cut && odd == odd_at_cut) {
        s.records = 0;      // all inside one quoted field
        s.first_end.reset();
        s.lfs_to_first = 0;
      } else {
        scan_quoted_piece(fd, im.in.name(), from, cut[k], cut[k + 1], odd, k ? '\0' : '\n', s);
        if (s.bad_quote) bad = true;
      }
    });
    // A '"' the reader takes as a plain byte: parity says nothing; read the file whole.
    if (bad) return {whole};
  }
  // Range k >= 1 starts after the first record end at or after cut[k] - 1; a piece without
  // one hands its start to the next piece's.
  std::vector<ByteRange> ranges{whole};
  std::uint64_t lines = im.header_next_line - 1, keys = 0;  // LFs and records before cut[k]
  for (std::size_t k = 0; k < n; ++k) {
    const PieceScan& s = scans[k];
    if (k && s.first_end && *s.first_end + 1 < size) {
      const std::uint64_t begin = *s.first_end + 1;
      if (begin > ranges.back().begin) {
        ranges.back().end = begin;
        ranges.push_back({begin, size, keys + (*s.first_end >= cut[k] ? 1 : 0), lines + s.lfs_to_first + 1});
      }
    }
    lines += s.lfs;
    keys += csv ? s.records : s.lfs;
  }
  return ranges;
}

KeySource::KeySource(const std::string& path, KeyFormat format)
    : impl_(std::make_unique<Impl>(path, format)) {}

KeySource::KeySource(const std::string& path, KeyFormat format, const ByteRange& range)
    : KeySource(path, format) {
  seek(range);
}

KeySource::~KeySource() = default;

void KeySource::seek(const ByteRange& range) { impl_->seek(range); }
bool KeySource::splittable() const { return impl_->path != "-" && impl_->in.size().has_value(); }
KeyFormat KeySource::format() const { return impl_->format; }
const std::string& KeySource::path() const { return impl_->path; }

bool KeySource::next(KeyChunk& chunk, std::size_t max_keys) {
  if (max_keys == 0) max_keys = 1;
  chunk.clear();
  // Sized once per chunk buffer (a no-op later), so appending keys never reallocates.
  chunk.keys.reserve(max_keys, std::min<std::size_t>(max_keys, kDefaultChunkKeys) * 16);
  chunk.first = impl_->keys;
  if (impl_->format == KeyFormat::lines)
    impl_->next_lines(chunk, max_keys);
  else
    impl_->next_csv(chunk, max_keys);
  impl_->keys += chunk.size();
  chunk.input_offset = impl_->in.consumed();
  return !chunk.keys.empty();
}

bool KeySource::has_bytes() const { return impl_->cols.bytes != kNoColumn; }
bool KeySource::has_requests() const { return impl_->cols.requests != kNoColumn; }
const std::string& KeySource::name() const { return impl_->in.name(); }
std::uint64_t KeySource::keys_read() const { return impl_->keys; }
std::optional<std::uint64_t> KeySource::total_bytes() const { return impl_->in.size(); }

}  // namespace hrw
