// blueprint.db: the SQLite form of a Blueprint (schema in schemas/blueprint.sql).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "blueprint/sqlite.h"

namespace hpn {

inline constexpr int kBlueprintSchemaVersion = 4;  // 3: cables.stock_length_m; 4: patch panels, trunks, legs
inline constexpr const char* kBlueprintFormat = "hpnctl-blueprint";
// How long a reader waits for a lock held by a writer of the same file
// (only files written in place take locks; see BlueprintStore::open).
inline constexpr int kBlueprintBusyTimeoutMs = 5000;

// Writes `bp` into a new database file at `path` (which must not exist).
Status write_blueprint_db(const Blueprint& bp, const std::string& path);

// A device row as stored, with the rack by name.
struct DeviceRow {
  std::string name;
  std::string role;
  int pod = kNone, segment = kNone, plane = kNone, rail = kNone;
  int64_t node_id = 0;
  std::string rack;
  int ru = kNone;
  std::string state;
  int64_t asn = kNone;
};

struct CableRow {
  std::string cable_id, kind, a_device, a_port, z_device, z_port;
  int speed_gbps = 0;
  std::string state;
  int length_m = 0;        // the estimated run (Cable::length_m)
  int stock_length_m = 0;  // the stocked cord that covers it (Cable::stock_length_m)
  std::string media, label_a, label_z;
  std::string a_rack, z_rack;  // where each end is: rack and unit (kNone: no unit)
  int a_ru = kNone, z_ru = kNone;
  // A run through patch panels (stock_length_m 0): the stocked lengths of
  // its patch cords from the a-end, and the trunk lanes between them.
  std::vector<int> cords_m;
  std::string via;
  bool patched() const { return !cords_m.empty(); }
  // The optic in each end's cage (`hpnctl cable` fills them in from the
  // spec's media.optics); empty: none (copper) or not looked up.
  std::string a_optic, z_optic;
};

// A port's speed and, for a breakout lane, its cage.
struct PortInfo {
  int speed_gbps = 0;
  std::string breakout_of;  // empty: not a lane
};

struct DeviceFilter {
  std::optional<std::string> role, state, rack;
  std::optional<int> pod, segment, plane, rail;
};

// The cables `hpnctl cables` lists: of a kind and state, and with an end on
// a device in the pod, segment and rack given (one device matching all).
struct CableFilter {
  std::optional<std::string> kind, state, rack;
  std::optional<int> pod, segment;
};

// Read access to a plan. open() checks that the file is a complete blueprint
// of the schema version this build understands, so a missing, truncated or
// foreign file is refused with a message instead of failing later. A store
// is used by one thread at a time (SQLite's own locking is off for it).
class BlueprintStore {
 public:
  // `dir` is a plan's output directory (or the path of a blueprint.db).
  static Result<BlueprintStore> open(const std::string& dir);

  const std::string& path() const { return path_; }
  Result<std::string> meta(const std::string& key) const;
  Result<std::vector<DeviceRow>> devices(const DeviceFilter& filter) const;
  Result<std::optional<DeviceRow>> device(const std::string& name) const;
  // The cables of the filter, in plan order.
  Result<std::vector<CableRow>> cables(const CableFilter& filter) const;
  // The racks, in floor order (hall, row, position).
  Result<std::vector<Rack>> racks() const;
  // Every cable with an end on `device` (and on `port`, when given).
  Result<std::vector<CableRow>> cables_of(const std::string& device,
                                          const std::optional<std::string>& port) const;
  // The whole blueprint, back in memory: what the lab, probe plans and the
  // diff work from, the structured cabling included. (BOM lines and
  // warnings are left out: nothing reads them.)
  Result<Blueprint> load() const;

  // Does the device have this port at all (cabled or not)?
  Result<bool> has_port(const std::string& device, const std::string& port) const;
  // The values the plan's devices take, for checking a filter: per column
  // (pod, segment, plane, rail) the lowest and highest, kNone when none has one.
  struct Ranges {
    std::pair<int, int> pod{kNone, kNone}, segment{kNone, kNone}, plane{kNone, kNone}, rail{kNone, kNone};
  };
  Result<Ranges> ranges() const;
  // The cable of this ID (the one on its labels), if the plan has it.
  Result<std::optional<CableRow>> cable(const std::string& cable_id) const;
  // The breakout lanes of a cage: "etp1" -> etp1a, etp1b ...; empty when
  // `cage` is no cage of the device.
  Result<std::vector<std::string>> lanes_of(const std::string& device, const std::string& cage) const;
  Result<std::optional<PortInfo>> port_info(const std::string& device, const std::string& port) const;

 private:
  // Names to their rows, found from a row's text in place (Stmt::view),
  // without a string made for each lookup.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  using NameIndex = std::unordered_map<std::string, int, NameHash, std::equal_to<>>;

  Status load_plant(Blueprint& bp, const NameIndex& cable_index) const;

  std::string path_;
  sql::Db db_;
};

}  // namespace hpn
