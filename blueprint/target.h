// What a name given on the command line refers to in a plan: a device, one
// of its ports, or a cable by the ID (or the whole label) printed on it.
// `hpnctl cable` shows what it finds, `hpnctl impact` fails it: one look-up
// for both, so the two commands accept the same names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "blueprint/store.h"

namespace hpn {

struct Target {
  // The device named (DEVICE, DEVICE:PORT), or the a-end of a cable named.
  std::string device;
  std::optional<std::string> port;      // DEVICE:PORT
  std::optional<std::string> cable_id;  // named by its ID or label
  // The cables it names: the one cable, the port's (a cage's: its breakout
  // lanes'), or every cable of the device. Empty for a port without a cable.
  std::vector<CableRow> cables;
  bool is_device() const { return !port && !cable_id; }
};

// `text` is DEVICE, DEVICE:PORT, a cable ID (C0H00001) or a cable's label as
// printed ("C0H00001 host-p0-s00-h000:nic1p1 > ..."). A device's name wins
// over a cable ID that happens to be spelt the same. Errors: "no device or
// cable 'X' in PATH", "device 'X' has no port 'Y'", or the store's own.
Result<Target> find_target(const BlueprintStore& store, const std::string& text);

}  // namespace hpn
