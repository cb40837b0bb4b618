// Executing a plan on a placement held in memory, for the tests of the operator's loop
// (docs/plan.md, "Checking progress and undoing"): a placement file's text, and the
// transitions of batches 1..r applied in order, each row checked as it is executed.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hrw/csv.hpp"
#include "bulk_support.hpp"

namespace hrw::test {

using Holders = std::map<std::string, std::vector<std::string>>;  // key -> holders, owner first

inline std::string placement_csv(const std::vector<std::string>& keys, const Holders& h, std::uint32_t r) {
  std::string text = r == 1 ? "key,owner" : "key";
  for (std::uint32_t i = 1; r > 1 && i <= r; ++i) text += ",replica_" + std::to_string(i);
  text += "\n";
  for (const std::string& k : keys) {
    text += csv::quoted(k);
    const auto& ids = h.at(k);
    for (std::uint32_t i = 0; i < r; ++i) text += "," + (i < ids.size() ? csv::quoted(ids[i]) : std::string());
    text += "\n";
  }
  return text;
}

// Executes the transitions of batches 1..through on `h`; returns the keys touched.
inline std::set<std::string> execute(const std::string& transitions, std::uint64_t through, Holders& h) {
  std::set<std::string> touched;
  auto rows = parse_csv_file(transitions);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (std::stoull(row[0]) > through) break;  // batches come in order
    auto& ids = h.at(row[1]);
    touched.insert(row[1]);
    if (row[2] == "copy") {
      REQUIRE(std::find(ids.begin(), ids.end(), row[3]) == ids.end());
      REQUIRE(std::find(ids.begin(), ids.end(), row[4]) != ids.end());  // the source holds it
      ids.push_back(row[3]);
    } else if (row[2] == "switch") {
      REQUIRE(ids.front() == row[4]);
      auto it = std::find(ids.begin(), ids.end(), row[3]);
      REQUIRE(it != ids.end());  // copied before it becomes the owner
      std::rotate(ids.begin(), it, it + 1);
    } else {
      auto it = std::find(ids.begin(), ids.end(), row[3]);
      REQUIRE(it != ids.end());
      REQUIRE(it != ids.begin());  // never the owner: the switch came first
      ids.erase(it);
    }
  }
  return touched;
}

}  // namespace hrw::test
