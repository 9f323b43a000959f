#include "blueprint/export_scope.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace hpn {

std::vector<int> pods_of(const Blueprint& bp) {
  std::set<int> pods;
  for (const auto& d : bp.devices) {
    if (d.pod != kNone) pods.insert(d.pod);
  }
  return {pods.begin(), pods.end()};
}

std::vector<std::pair<int, int>> segments_of(const Blueprint& bp) {
  std::set<std::pair<int, int>> segments;
  for (const auto& d : bp.devices) {
    if (d.pod != kNone && d.segment != kNone) segments.insert({d.pod, d.segment});
  }
  return {segments.begin(), segments.end()};
}

namespace {

// "0", "0..14" or "0, 2, 5": what a plan has, for messages.
std::string ranges(const std::vector<int>& values) {
  if (values.empty()) return "none";
  bool contiguous = values.back() - values.front() + 1 == static_cast<int>(values.size());
  if (values.size() == 1) return std::to_string(values.front());
  if (contiguous) return fmt::format("{}..{}", values.front(), values.back());
  return fmt::format("{}", fmt::join(values, ", "));
}

}  // namespace

Status check_scope(const Blueprint& bp, const ExportScope& scope) {
  if (scope.device != kNone) {
    const Device& d = bp.devices[scope.device];
    if (d.role == Role::host) {
      return Error{fmt::format("--switch {}: is a host; name a switch (ToR, aggregation, core or front-end leaf)",
                               d.name)};
    }
  }
  std::vector<int> pods = pods_of(bp);
  if (scope.pod && !std::binary_search(pods.begin(), pods.end(), *scope.pod)) {
    return Error{fmt::format("--pod {}: the plan has pod {}", *scope.pod, ranges(pods))};
  }
  if (scope.segment) {
    std::vector<int> segments;
    for (auto [pod, segment] : segments_of(bp)) {
      if (!scope.pod || pod == *scope.pod) segments.push_back(segment);
    }
    std::sort(segments.begin(), segments.end());
    segments.erase(std::unique(segments.begin(), segments.end()), segments.end());
    if (!std::binary_search(segments.begin(), segments.end(), *scope.segment)) {
      return Error{fmt::format("--segment {}: the plan has segment {}{}", *scope.segment, ranges(segments),
                               scope.pod ? fmt::format(" in pod {}", *scope.pod) : "")};
    }
  }
  return {};
}

bool device_in_scope(const Device& d, const ExportScope& scope) {
  if (scope.pod && d.pod != *scope.pod) return false;
  if (scope.segment && d.segment != *scope.segment) return false;
  return true;
}

std::vector<int> select_cables(const Blueprint& bp, const ExportScope& scope) {
  std::vector<int> selected;
  const bool filtered = scope.pod || scope.segment;
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (scope.device != kNone && c.a_device != scope.device && c.z_device != scope.device) continue;
    if (filtered && !device_in_scope(bp.devices[c.a_device], scope) &&
        !device_in_scope(bp.devices[c.z_device], scope)) {
      continue;
    }
    selected.push_back(static_cast<int>(i));
  }
  return selected;
}

}  // namespace hpn
