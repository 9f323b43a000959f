// The one way host apply and switch apply make a plan's changes: in order,
// and at the first failure, or when `stop` (asked before each step) says
// so, every step made undone, newest first, going on past an undo that
// fails, so the machine is back where it was or the report says where not.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hpn {

struct ApplyOutcome {
  size_t applied = 0;                    // steps made (and, on failure, since undone)
  std::optional<size_t> failed_step;     // index into the plan (interrupted: the step not made)
  std::string error;                     // why it failed
  bool interrupted = false;              // `stop` said so before failed_step
  std::vector<size_t> undone;            // steps undone, in the order they were undone
  std::vector<std::string> undo_errors;  // undo steps that failed (the state is then mixed)
  bool ok() const { return !failed_step; }
};

// Change has text(); Ops has apply(const Change&) and undo(const Change&),
// each returning a Status.
template <class Change, class Ops>
ApplyOutcome apply_steps(const std::vector<Change>& changes, Ops& ops, const std::function<bool()>& stop) {
  ApplyOutcome outcome;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (stop && stop()) {
      outcome.failed_step = i;
      outcome.interrupted = true;
      outcome.error = "interrupted";
      break;
    }
    if (auto done = ops.apply(changes[i]); !done) {
      outcome.failed_step = i;
      outcome.error = done.error().message;
      break;
    }
    ++outcome.applied;
  }
  if (outcome.ok()) return outcome;
  for (size_t i = outcome.applied; i-- > 0;) {
    if (auto undone = ops.undo(changes[i]); !undone) {
      outcome.undo_errors.push_back(fmt::format("undo of step {} ({}): {}", i + 1, changes[i].text(), undone.error().message));
    }
    outcome.undone.push_back(i);
  }
  return outcome;
}

}  // namespace hpn
