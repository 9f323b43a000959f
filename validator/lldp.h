// LLDP as a second source of truth: the neighbour tables lldpd keeps on
// hosts and switches (`lldpcli -f json0 show neighbors details`), each entry
// a directed link "the neighbour's port -> this device's port", fed to the
// same diff as the probes' traces (validator/witness.h, validator/diff.h).
//
// json0 is lldpd's JSON writer with a fixed shape (FIELD.md §5): attributes
// are strings or booleans, every child element is an array, even when it has
// one member. Plain `-f json` folds one-member arrays and keys interfaces by
// name, so its shape changes with the number of neighbours; it is refused.
//
//   {"lldp": [{"interface": [{"name": "etp1a", "via": "LLDP", ...,
//       "chassis": [{"id": [{"type": "mac", "value": "02:..."}],
//                    "name": [{"value": "host-p0-s00-h000"}], ...}],
//       "port": [{"id": [{"type": "mac", "value": "02:..."}],
//                 "descr": [{"value": "nic1p1"}], ...}]}, ...]}]}
//
// With no neighbour at all the dump is {"lldp": [{}]}. The dump does not
// name its own device (`show chassis` is another command): the caller says
// which device it is from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/result.h"
#include "validator/dump_file.h"
#include "validator/witness.h"

namespace hpn::validator {

// One neighbour entry: what a local port hears.
struct LldpNeighbour {
  std::string local_port;    // interface[].name: the port the frames arrive on
  std::string chassis_name;  // chassis[0].name[0].value (system name); empty when none was sent
  std::string port_id_type;  // port[0].id[0].type: "mac", "ifname", "local", ...
  std::string port_id;       // port[0].id[0].value
  std::string port_descr;    // port[0].descr[0].value; empty when none was sent
  std::string where;         // "SOURCE: /lldp/0/interface/3", for messages
};

// Parses one dump. Strict about what it reads (types, one-member arrays,
// the keys it needs), silent about the TLVs it does not use. Never throws,
// whatever the bytes; every error names the source and the spot:
//   r1.json:3:14: not JSON: syntax error while parsing object key ...
//   r1.json: /lldp/0/interface/2/port/0/descr/0/value: expected a string, found a number
Result<std::vector<LldpNeighbour>> parse_lldp_json(std::string_view bytes, std::string_view source);

// One dump and the device it comes from.
struct LldpDump {
  std::string device;  // the local device, as named by DEVICE= or by the file name
  bool device_from_file_name = false;
  std::string source;  // the file as named by the user
  std::vector<LldpNeighbour> neighbours;
};

// A `--lldp` argument: `DEVICE=FILE`, or `FILE` whose name is DEVICE.json
// (validator/dump_file.h).
using LldpSource = DumpSource;
Result<LldpSource> parse_lldp_argument(std::string_view argument);

// Reads and parses the file of `source`.
Result<LldpDump> read_lldp_dump(const LldpSource& source);

// Which field of a neighbour's port names it: the port description (what
// Linux lldpd fills with the interface name; its port ID is a MAC) or the
// port ID (switches that send the interface name as an ifname or local ID).
enum class LldpMatch { port_description, port_id };
bool parse_lldp_match(std::string_view text, LldpMatch& out);  // "description" | "port-id"

// Adds the dumps to `w`. Each neighbour entry is one observation, received:
// a link from the neighbour's port to the local one. A cable with dumps of
// both its devices was listened to both ways: each direction counts one LLDP
// exchange sent, and its silence is evidence (a direction stays undecided
// when its receiving port heard a neighbour that names no planned port).
// A neighbour whose device or port the blueprint does not know is an
// unreadable link, as an unknown node ID is for probes.
// Errors (input errors): a dump's device is not in the blueprint, or two
// dumps are of one device.
Status add_lldp_witnesses(const FabricIndex& fabric, const std::vector<LldpDump>& dumps, LldpMatch match,
                          Witnesses& w);

}  // namespace hpn::validator
