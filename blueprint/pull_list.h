// A pull list: the cables a technician pulls at a rack, each seen from the
// end there, in the order the rack is worked (unit by unit), with the far
// end to walk to, the label to put on, and the stocked cord to take from
// the shelf. `hpnctl cables` renders it; `hpnctl devices --rack` sorts the
// same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/store.h"

namespace hpn {

// One end of a cable, where it is.
struct PulledEnd {
  std::string rack;
  int ru = kNone;
  std::string device, port, label;  // label: the one printed for this end
};

struct PullEntry {
  CableRow cable;
  bool near_is_a = true;  // which end the technician stands at
  PulledEnd near() const;
  PulledEnd far() const;
};

// "etp2a" before "etp10a": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

// The cables seen from `rack` (a cable with both ends in it: once, from its
// a-end), or from their a-ends when no rack is given, sorted by the near
// end's rack (in the order of `floor`), unit, device and port, then cable ID.
std::vector<PullEntry> pull_list(std::vector<CableRow> cables, const std::vector<Rack>& floor,
                                 const std::optional<std::string>& rack);

// Devices by rack (in the order of `floor`), unit and name.
void sort_by_place(std::vector<DeviceRow>& devices, const std::vector<Rack>& floor);

}  // namespace hpn
