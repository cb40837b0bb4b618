// A plan folder (moves.csv, summary.json, an SVG inside it, steps/NN/, a Dask plan's
// moves-NNNNN.csv; a Dask placement's place-NNNNN.csv and stats.json) is one publication (docs/plan.md, "Publication"):
// - the constructor locks the folder (flock on the folder itself, created empty if
//   missing, held until the object dies; a folder another live run holds is refused at
//   once), refuses a folder
//   that holds anything a plan does not write, removes the temp siblings of dead runs,
//   and creates the fresh temp sibling `.NAME.tmp-PID-XXXXXX` where the plan is built;
// - publish() fsyncs every file and folder of that tree and swaps it in as a unit
//   (renameat2 RENAME_EXCHANGE; two renames where the file system lacks it), then removes
//   the old tree. The folder holds exactly the old plan or exactly the new one;
// - destroyed unpublished (an error, an exception), it removes the temp tree; a signal
//   handler calling remove_temp_files_now() removes it too, and a folder it created for
//   the lock is removed again; a run killed outright leaves
//   it to the next run's cleanup.
// Symlinks are followed: a link to a folder keeps pointing at the (new) plan.
#pragma once
#include <string>

namespace hrw {

class PlanFolder {
 public:
  // InputError naming `dir` when it cannot be used: a file in the way, a folder holding
  // files no plan writes, a folder another run is publishing, a parent that cannot be
  // created or written.
  explicit PlanFolder(std::string dir);
  ~PlanFolder();
  PlanFolder(const PlanFolder&) = delete;
  PlanFolder& operator=(const PlanFolder&) = delete;

  const std::string& dir() const { return dir_; }      // as given, for messages
  const std::string& build() const { return build_; }  // where the new plan is written
  // build() + "/" + relative (folders on the way created).
  std::string file(const std::string& relative) const;
  // Where `path` (a file the caller names) lands inside the new tree when it lies inside
  // the folder ("" when it does not): an SVG given as DIR/flows.svg is part of the plan.
  // InputError for a path deeper inside (DIR/sub/x.svg: the next run could not replace it).
  std::string inside(const std::string& path) const;

  // WriteError when a file cannot be synced or the swap fails (the old folder is then
  // untouched).
  void publish();

 private:
  std::string dir_;     // as given
  std::string target_;  // the folder that is replaced (symlinks resolved, absolute)
  std::string build_;   // the temp sibling
  int lock_fd_ = -1;    // the folder, flock'ed
  int slot_ = -1;
  bool created_ = false;  // the folder did not exist: made for the lock
  bool published_ = false;
  void release() noexcept;
};

}  // namespace hrw
