#include "blueprint/target.h"

#include <fmt/format.h>

namespace hpn {

namespace {

// The cable of a label as printed on it: its first word is the cable ID,
// and the whole text must be the label of one of its two ends.
Result<std::optional<CableRow>> cable_of_label(const BlueprintStore& store, const std::string& text) {
  const auto space = text.find(' ');
  if (space == std::string::npos) return store.cable(text);
  auto by_id = store.cable(text.substr(0, space));
  if (!by_id || !by_id.value()) return by_id;
  const CableRow& c = *by_id.value();
  if (c.label_a == text || c.label_z == text) return by_id;
  return std::optional<CableRow>();
}

}  // namespace

Result<Target> find_target(const BlueprintStore& store, const std::string& text) {
  Target t;
  t.device = text;
  if (auto colon = text.find(':'); colon != std::string::npos && text.find(' ') == std::string::npos) {
    t.device = text.substr(0, colon);
    t.port = text.substr(colon + 1);
  }
  auto found = store.device(t.device);
  if (!found) return found.error();
  if (!found.value()) {
    // The ID (or label) in the technician's hand: seen from its a-end.
    auto cable = cable_of_label(store, text);
    if (!cable) return cable.error();
    if (!cable.value()) return Error{fmt::format("no device or cable '{}' in {}", t.device, store.path())};
    Target by_id;
    by_id.device = cable.value()->a_device;
    by_id.cable_id = cable.value()->cable_id;
    by_id.cables.push_back(std::move(*cable.value()));
    return by_id;
  }
  if (!t.port) {
    auto rows = store.cables_of(t.device, std::nullopt);
    if (!rows) return rows.error();
    t.cables = std::move(rows.value());
    return t;
  }
  auto has = store.has_port(t.device, *t.port);
  if (!has) return has.error();
  auto direct = store.cables_of(t.device, t.port);
  if (!direct) return direct.error();
  if (!direct->empty()) {
    t.cables = std::move(direct.value());
    return t;
  }
  // A cage broken out carries its cables on its lanes: etp1 -> etp1a, etp1b.
  auto lanes = store.lanes_of(t.device, *t.port);
  if (!lanes) return lanes.error();
  if (!has.value() && lanes->empty()) return Error{fmt::format("device '{}' has no port '{}'", t.device, *t.port)};
  for (const auto& lane : lanes.value()) {
    auto rows = store.cables_of(t.device, lane);
    if (!rows) return rows.error();
    t.cables.insert(t.cables.end(), rows->begin(), rows->end());
  }
  return t;
}

}  // namespace hpn
