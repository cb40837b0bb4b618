// A plan folder's rows read back for `hrw check --plan` (docs/plan.md, "Checking progress
// and undoing"): each changed key's round and the holders its set gains and loses.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hrw::io {

struct KeyChange {
  std::uint64_t round = 0;  // the largest batch among the key's rows
  // transitions.csv: the nodes of its copy rows (gained) and of its retire rows (lost).
  // moves.csv: the `to` of its rows (gained) and their `from` (the copy's source; with
  // R = 1 the node the key leaves).
  std::vector<std::string> gained, lost, sources;
};
using PlanChanges = std::unordered_map<std::string, KeyChange>;

// DIR/transitions.csv of `hrw plan --transitions` (docs/plan.md, "Transitions"). A key's
// switch and retires come in the batch of its last copy. InputError naming the file and
// line for anything but that format.
PlanChanges read_transitions(const std::string& path);
// DIR/moves.csv (docs/plan.md, "DIR/moves.csv"): `batch,key,from,to[,bytes][,requests]`;
// a key without a copy to make has no row.
PlanChanges read_moves(const std::string& path);

}  // namespace hrw::io
