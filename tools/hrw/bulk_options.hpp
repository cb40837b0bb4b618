// Options shared by the bulk commands (place, plan): the key input and the placement
// request, declared once so both commands read and document them the same way.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "hrw/plan.hpp"

namespace hrw::cli {

inline constexpr std::uint64_t kMaxChunkKeys = std::uint64_t{1} << 20;

struct BulkOptions {
  std::string keys;
  std::string keys_format;  // empty: from the file name
  std::uint32_t replicas = 1;
  std::string distinct;
  bool partial = false;
  bool quiet = false;  // no table or summary on stderr (errors and warnings still)
  unsigned threads = 0;
  std::size_t chunk_keys = kDefaultChunkKeys;
  std::vector<std::string> ignored_columns;

  KeyInput key_input() const;
  PlaceOptions place_options() const;  // InputError for --replicas 0
  // Which of --replicas, --distinct, --partial the command line gave (contract §8).
  static GivenSettings given(const CLI::App& sub);
};

void add_bulk_options(CLI::App& sub, BulkOptions& options);
// --ignore-columns A,B: CSV header columns to skip, for every command that reads a keys CSV
// or a placement file (docs/errors.md, "CSV columns").
CLI::Option* add_ignore_columns(CLI::App& sub, std::vector<std::string>& columns);

}  // namespace hrw::cli
