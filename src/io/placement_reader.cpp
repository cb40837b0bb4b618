#include "hrw/placement_reader.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "byte_reader.hpp"
#include "csv_columns.hpp"
#include "csv_reader.hpp"
#include "spill_file.hpp"
#include "duplicate_keys.hpp"

namespace hrw::io {

namespace {

std::optional<std::uint64_t> regular_file_size(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return std::nullopt;
  return size;
}

// "replica_7" -> 7; nullopt for a name that does not start with "replica". A name that does
// but is not replica_N (N from 1, no leading zero: "replica_02", "replica_", "replica1") is
// refused: a column meant as a replica must not be ignored.
std::optional<std::size_t> replica_rank(std::string_view name, const std::string& file) {
  constexpr std::string_view kPrefix = "replica_";
  if (!name.starts_with("replica")) return std::nullopt;
  std::size_t rank = 0;
  const char* end = name.data() + name.size();
  bool ok = name.size() > kPrefix.size() && name.starts_with(kPrefix) && name[kPrefix.size()] != '0';
  if (ok) {
    auto [ptr, ec] = std::from_chars(name.data() + kPrefix.size(), end, rank);
    ok = ec == std::errc() && ptr == end && rank > 0;
  }
  if (!ok)
    throw InputError(fmt::format("{}: line 1: column {} is not a replica column (replica_1, replica_2, ...)",
                                 file, quote_for_message(name)));
  return rank;
}

}  // namespace

PlacementReader::PlacementReader(const std::string& path, std::optional<std::uint32_t> replicas,
                                 const std::vector<std::string>& ignored_columns)
    : name_(path == "-" ? "<stdin>" : path),
      in_(std::make_unique<ByteReader>(path)),
      csv_(std::make_unique<CsvReader>(*in_)),
      total_(regular_file_size(path)) {
  if (!csv_->next()) throw InputError(fmt::format("{}: empty placement file (no header)", name_));
  fields_ = csv_->field_count();
  std::size_t owner_col = kNone;
  std::vector<std::size_t> ranked;  // column of rank r + 1, kNone until seen
  std::optional<std::string> unknown;  // the first column not read, refused once the key is found
  for (std::size_t c = 0; c < fields_; ++c) {
    std::string_view f = csv_->field(c);
    // Spreadsheets start CSV files with a UTF-8 byte-order mark, as for keys files.
    if (c == 0 && f.starts_with("\xEF\xBB\xBF")) f.remove_prefix(3);
    if (skipped_column(f, ignored_columns)) continue;
    std::size_t* slot = nullptr;
    if (f == "key") slot = &key_col_;
    else if (f == "owner") slot = &owner_col;
    else if (f == "bytes") slot = &bytes_col_;
    else if (f == "requests") slot = &requests_col_;
    else if (auto rank = replica_rank(f, name_)) {
      if (*rank > 4096) throw InputError(fmt::format("{}: line 1: column {}: too many replicas", name_, quote_for_message(f)));
      if (ranked.size() < *rank) ranked.resize(*rank, kNone);
      slot = &ranked[*rank - 1];
    }
    if (!slot) {
      if (!unknown) unknown = std::string(f);
      continue;
    }
    if (*slot != kNone) throw InputError(fmt::format("{}: line 1: column {} appears twice", name_, quote_for_message(f)));
    *slot = c;
  }
  if (key_col_ == kNone) throw InputError(fmt::format("{}: line 1: the placement header has no \"key\" column", name_));
  if (unknown) refuse_unknown_column(name_, *unknown, {"key", "owner", "replica_1", "bytes", "requests"});
  if (owner_col != kNone && !ranked.empty())
    throw InputError(fmt::format("{}: line 1: the placement header has both owner and replica_N columns", name_));
  if (owner_col != kNone) replica_cols_ = {owner_col};
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    if (ranked[r] == kNone)
      throw InputError(fmt::format("{}: line 1: replica_{} is missing (replica columns must be 1..{})",
                                   name_, r + 1, ranked.size()));
    replica_cols_.push_back(ranked[r]);
  }
  if (replica_cols_.empty())
    throw InputError(fmt::format("{}: line 1: the placement header has no owner or replica_1.. columns", name_));
  if (replicas && *replicas != replica_cols_.size())
    throw InputError(fmt::format("{}: line 1: the placement has {} replica column(s) but the replica count is {}",
                                 name_, replica_cols_.size(), *replicas));
}

PlacementReader::~PlacementReader() = default;

std::uint32_t PlacementReader::holder(const std::string& id) {
  auto [it, fresh] = id_index_.try_emplace(id, static_cast<std::uint32_t>(ids_.size()));
  if (fresh) ids_.push_back(id);
  return it->second;
}

// A cell, added to its column's total (checked_sum.hpp): every total a plan or check reports
// is part of these sums, so refusing an overflow here keeps every one of them right.
std::uint64_t PlacementReader::count(std::size_t col, const char* what, std::uint64_t& total) const {
  const std::uint64_t value = parse_count(csv_->field(col), what, name_, csv_->record_line());
  const auto sum = exact_sum(total, value);
  if (!sum) throw sum_overflow(what, fmt::format("{}: line {}", name_, csv_->record_line()));
  total = *sum;
  return value;
}

bool PlacementReader::next(KeyChunk& chunk, std::vector<std::uint32_t>& holders,
                           std::vector<std::uint64_t>& lines, std::size_t max_keys) {
  chunk.clear();
  holders.clear();
  lines.clear();
  chunk.first = keys_;
  const std::uint32_t r_count = replicas();
  while (chunk.size() < max_keys && csv_->next()) {
    const std::uint64_t line = csv_->record_line();
    if (csv_->field_count() != fields_)
      throw InputError(fmt::format("{}: line {}: {} field(s) but the header has {} (wrong replica count?)",
                                   name_, line, csv_->field_count(), fields_));
    bool ended = false;
    for (std::uint32_t r = 0; r < r_count; ++r) {
      const std::string& id = csv_->field(replica_cols_[r]);
      if (id.empty()) {
        if (r == 0) throw InputError(fmt::format("{}: line {}: the key has no owner", name_, line));
        ended = true;
        holders.push_back(kNoHolder);
        continue;
      }
      if (ended)
        throw InputError(fmt::format("{}: line {}: replica_{} follows an empty replica", name_, line, r + 1));
      const std::uint32_t h = holder(id);
      if (std::find(holders.end() - r, holders.end(), h) != holders.end())
        throw InputError(fmt::format("{}: line {}: node {} holds the key twice", name_, line, quote_for_message(id)));
      holders.push_back(h);
    }
    chunk.keys.add(csv_->field(key_col_));
    if (has_bytes()) chunk.bytes.push_back(count(bytes_col_, "bytes", bytes_total_));
    if (has_requests()) chunk.requests.push_back(count(requests_col_, "requests", requests_total_));
    lines.push_back(line);
    ++keys_;
  }
  chunk.input_offset = in_->file_consumed();
  return chunk.size() > 0;
}

// ---- duplicate keys ----

struct DuplicateKeys::Impl {
  struct Head {
    std::uint64_t hash, line;
    std::uint32_t size;
  };
  std::vector<std::unique_ptr<SpillFile>> parts;
};

DuplicateKeys::DuplicateKeys(const std::string& dir, std::optional<std::uint64_t> input_bytes)
    : impl_(std::make_unique<Impl>()) {
  // About 32 MiB of input per partition; 64 when the size is unknown (stdin).
  const std::uint64_t parts =
      input_bytes ? std::clamp<std::uint64_t>(*input_bytes / (std::uint64_t{32} << 20) + 1, 1, 256) : 64;
  for (std::uint64_t p = 0; p < parts; ++p) impl_->parts.push_back(std::make_unique<SpillFile>(dir));
}

DuplicateKeys::~DuplicateKeys() = default;

void DuplicateKeys::add(std::string_view key, std::uint64_t line) {
  const Impl::Head h{std::hash<std::string_view>{}(key), line, static_cast<std::uint32_t>(key.size())};
  SpillFile& f = *impl_->parts[h.hash % impl_->parts.size()];
  f.write(&h, sizeof h);
  f.write(key.data(), key.size());
}

void DuplicateKeys::check(const std::string& name) {
  struct Seen {
    std::uint64_t hash, line, offset;
    std::uint32_t size;
  };
  std::optional<std::pair<std::uint64_t, std::uint64_t>> worst;  // (line, first line)
  std::string worst_key;
  for (auto& part : impl_->parts) {
    std::vector<Seen> seen;
    std::string arena;
    part->rewind();
    Impl::Head h;
    while (part->read(&h, sizeof h)) {
      seen.push_back({h.hash, h.line, arena.size(), h.size});
      arena.resize(arena.size() + h.size);
      if (h.size && !part->read(arena.data() + seen.back().offset, h.size))
        throw std::runtime_error("temporary file: short read");
    }
    part.reset();
    auto key = [&](const Seen& s) { return std::string_view(arena).substr(s.offset, s.size); };
    std::sort(seen.begin(), seen.end(), [&](const Seen& a, const Seen& b) {
      if (a.hash != b.hash) return a.hash < b.hash;
      if (const int c = key(a).compare(key(b))) return c < 0;
      return a.line < b.line;
    });
    for (std::size_t i = 1; i < seen.size(); ++i)
      if (seen[i].hash == seen[i - 1].hash && key(seen[i]) == key(seen[i - 1])) {
        std::size_t first = i - 1;
        while (first > 0 && seen[first - 1].hash == seen[i].hash && key(seen[first - 1]) == key(seen[i])) --first;
        if (!worst || seen[i].line < worst->first) {
          worst = {seen[i].line, seen[first].line};
          worst_key = std::string(key(seen[i]));
        }
      }
  }
  if (!worst) return;
  throw InputError(fmt::format("{}: line {}: key {} is listed twice (first on line {})", name,
                               worst->first, quote_for_message(worst_key), worst->second));
}

}  // namespace hrw::io
