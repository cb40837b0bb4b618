#include "csv_columns.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::io {

namespace {

std::string folded(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Levenshtein distance, for short header names only.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

bool skipped_column(std::string_view name, const std::vector<std::string>& skipped) {
  return std::find(skipped.begin(), skipped.end(), name) != skipped.end();
}

void refuse_unknown_column(const std::string& file, std::string_view name, const std::vector<std::string_view>& known) {
  // The nearest known name, by case, surrounding spaces and up to two edits ("byte",
  // " Bytes", "request"); none for a name that is only short ("id" is not "key").
  const std::string f = folded(name);
  std::string_view nearest;
  std::size_t best = 3;
  for (const std::string_view k : known) {
    const std::size_t d = distance(f, k);
    if (d < best && d < k.size()) {
      best = d;
      nearest = k;
    }
  }
  std::string list;
  for (const std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  const std::string near = nearest.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", nearest);
  // "{}" is the caller's name for the columns to skip (InputError's mentioned settings).
  throw InputError(Setting::none,
                   fmt::format("{}: line 1: unknown column {}{}: the columns read are {}; to skip it, add it to {{}}",
                               file, quote_for_message(name), near, list),
                   std::vector<Setting>{Setting::ignored_columns});
}

}  // namespace hrw::io
