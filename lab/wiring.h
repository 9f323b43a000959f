// The cables as actually laid, which the lab is built from. It may differ
// from the blueprint: swapped ends, a cable to another device or port,
// missing or extra cables, and faults on a cable. Without a wiring file the
// lab is wired as planned.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn::lab {

enum class FaultKind { none, down, drop, loss, ioam_off, icmp_off };
// Which way a one-directional fault acts, in the wiring file's own a/z order.
enum class Direction { a_to_z, z_to_a };

// The `fault` column: `down` (a dark cable), `drop-a-z` / `drop-z-a` (one
// direction broken), `loss-a-z:N` / `loss-z-a:N` (N% loss one way, 1..100);
// or the state of the switch port at one end, the cable itself sound:
// `ioam-off-a` / `ioam-off-z` (the port writes no IOAM record into what
// enters it: net.ipv6.conf.IF.ioam6_enabled=0), `icmp-off-a` /
// `icmp-off-z` (no ICMPv6 error leaves the switch by that port, as a
// control-plane policer that lets none through). A switch with IOAM or
// ICMPv6 errors off altogether is that fault at every cable end of it.
struct Fault {
  FaultKind kind = FaultKind::none;
  Direction direction = Direction::a_to_z;
  int loss_percent = 0;
  bool at_z = false;  // ioam_off, icmp_off: the end whose port it is

  // The column's text; empty for no fault.
  std::string to_string() const;
  friend bool operator==(const Fault&, const Fault&) = default;
};

// Parses the `fault` column; an empty text is no fault.
bool parse_fault(std::string_view text, Fault& out);

struct WiredCable {
  std::string cable_id;  // as given (may be empty for an extra cable)
  int line = 0;          // line in the wiring file; 0 for the blueprint's own cables
  int a_device = 0;      // index into Blueprint::devices
  std::string a_port;
  int z_device = 0;
  std::string z_port;
  Fault fault;
};

struct Wiring {
  std::string source;  // the wiring file as named by the user; empty when planned
  std::vector<WiredCable> cables;
  // Random loss, in percent, on both directions of every cable that is not
  // down (`lab up --loss`), on top of each cable's own fault: the background
  // a fabric's verdicts must hold under.
  int loss_percent = 0;
};

// The largest --loss the lab takes: past it most probes of a 4-cable path
// never come back, and no verdict can be had in reasonable time.
inline constexpr int kMaxBackgroundLoss = 50;

// Is the device part of the lab? Hosts and back-end switches are; front-end
// leaves are not (the lab is the back-end fabric).
bool in_lab(const Device& device);

// The blueprint's own back-end cables, active and backup, fault-free.
Wiring planned_wiring(const Blueprint& bp);

// A wiring file with the columns of cabling.csv (found by header name, in
// any order; a_device, a_port, z_device and z_port are required, the other
// columns of cabling.csv are accepted and ignored) and an optional `fault`
// column. Every error is `SOURCE:LINE: message`, one per line, all of them:
//   wiring.csv:12: unknown device 'tor-p0-s00-r9a'; did you mean 'tor-p0-s00-r1a'?
Result<Wiring> parse_wiring(std::string_view text, std::string_view source, const Blueprint& bp);

// Reads and parses the file at `path` (named as given in messages).
Result<Wiring> read_wiring_file(const std::string& path, const Blueprint& bp);

}  // namespace hpn::lab
