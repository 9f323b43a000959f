// One value a node wrote into a per-hop telemetry record.
//
// Both IOAM (RFC 9197 §4.4.2: all bits set when a node cannot populate a
// field) and INT (v2.1, "INT-MD Metadata Header Format": 4 or 8 bytes of
// 0xFF) mark a value the node could not supply with all ones. The decoders
// keep those bits and set `unavailable`, so a report can say "node did not
// know" instead of showing 16777215 as a switch ID. Writers (transit
// functions) write all ones when `unavailable` is set, whatever `value` holds.
#pragma once

namespace hpn::probe {

template <class T>
struct HopValue {
  T value{};
  bool unavailable = false;

  HopValue() = default;
  HopValue(T v) : value(v) {}  // NOLINT: implicit so `rec.node_id = 7u` reads well
  HopValue(T v, bool na) : value(v), unavailable(na) {}

  static HopValue not_available(T all_ones) { return HopValue(all_ones, true); }
  friend bool operator==(const HopValue&, const HopValue&) = default;
};

}  // namespace hpn::probe
