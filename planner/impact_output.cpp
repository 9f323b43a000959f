#include "planner/impact_output.h"

#include <fmt/format.h>

#include <cmath>

#include "blueprint/text_table.h"

namespace hpn {

namespace {

double percent_value(int64_t lost, int64_t total) {
  return total == 0 ? 0.0 : std::round(10000.0 * double(lost) / double(total)) / 100.0;
}

std::string where(const CapacityLoss& c) {
  return c.scope == CapacityScope::plane ? fmt::format("pod {} plane {}", c.pod, c.plane)
                                         : fmt::format("pod {} segment {} plane {}", c.pod, c.segment, c.plane);
}

std::string ports_left(const HostImpact& h) {
  if (h.failed) return "the host itself failed";
  std::string text;
  for (const auto& r : h.rails) {
    std::string ports;
    for (const auto& p : r.left) {
      ports += fmt::format("{}{} -> {} (plane {}{})", ports.empty() ? "" : ", ", p.port, p.tor, p.plane,
                           p.reach == Reach::segment ? ", its segment only: no uplink left" : "");
    }
    text += fmt::format("{}rail {}: {}", text.empty() ? "" : "; ", r.rail, r.dark() ? "none, dark" : ports);
  }
  return text;
}

std::string host_list(const Blueprint& bp, const std::vector<int>& hosts) {
  if (hosts.size() == 1) return bp.devices[hosts.front()].name;
  return fmt::format("{} to {}", bp.devices[hosts.front()].name, bp.devices[hosts.back()].name);
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

// One sentence per outage: who goes dark on which rail, and why.
std::string outage_sentence(const Blueprint& bp, const RailOutage& o) {
  const bool one = o.hosts.size() == 1;
  const std::string who = fmt::format("{} host{} of pod {} segment {} ({}) {}", o.hosts.size(), one ? "" : "s",
                                      o.pod, o.segment, host_list(bp, o.hosts), one ? "loses" : "lose");
  switch (o.kind) {
    case OutageKind::single_tor:
      return fmt::format("single point of failure: {} is the only ToR of rail {}; {} every path on it",
                         o.causes.front(), o.rail, who);
    case OutageKind::tor_pair:
      return fmt::format("both ToRs of rail {} fail together ({}): {} every path on rail {}", o.rail,
                         join(o.causes), who, o.rail);
    case OutageKind::cables:
    case OutageKind::mixed:
      break;
  }
  return fmt::format("{}{}: {} every path on rail {}", o.single_point() ? "single point of failure: " : "",
                     join(o.causes), who, o.rail);
}

}  // namespace

std::string percent(int64_t lost, int64_t total) { return fmt::format("{:.2f}%", percent_value(lost, total)); }

void render_impact_table(const Blueprint& bp, const ImpactReport& r, std::ostream& out) {
  out << fmt::format("{} failure{} in plan '{}':\n", r.failures.size(), r.failures.size() == 1 ? "" : "s",
                     bp.spec_name);
  for (const auto& f : r.failures) out << "  " << describe(bp, f) << '\n';
  if (r.frontend_failures > 0) {
    out << fmt::format("  ({} on the front-end network, which the back end does not depend on)\n",
                       r.frontend_failures);
  }

  const int dark = r.hosts_dark_on_a_rail();
  out << fmt::format("\nhosts: {} {} back-end bandwidth or reach\n", r.hosts.size(), r.hosts.size() == 1 ? "loses" : "lose");
  if (!r.hosts.empty()) {
    TextTable hosts({"host", "lost Gb/s", "of Gb/s", "share", "paths left on the rails hit"});
    for (const auto& h : r.hosts) {
      hosts.add({bp.devices[h.host].name, std::to_string(h.lost_gbps), std::to_string(h.total_gbps),
                 percent(h.lost_gbps, h.total_gbps), ports_left(h)});
    }
    hosts.render(out, "  ");
  }

  out << "\ncapacity lost:\n";
  if (r.capacity.empty()) {
    out << "  none\n";
  } else {
    TextTable capacity({"where", "tier", "lost Gb/s", "of Gb/s", "share"});
    for (const auto& c : r.capacity) {
      capacity.add({where(c), std::string(to_string(c.tier)), std::to_string(c.lost_gbps),
                    std::to_string(c.total_gbps), percent(c.lost_gbps, c.total_gbps)});
    }
    capacity.render(out, "  ");
  }

  if (dark == 0) {
    out << "\nredundancy: no host loses every path on a rail\n";
    return;
  }
  out << fmt::format("\nredundancy: {} host{} every path on a rail\n", dark, dark == 1 ? " loses" : "s lose");
  for (const auto& o : r.outages) out << "  " << outage_sentence(bp, o) << '\n';
}

nlohmann::ordered_json impact_json(const Blueprint& bp, const ImpactReport& r) {
  using json = nlohmann::ordered_json;
  auto or_null = [](int v) { return v == kNone ? json() : json(v); };
  json j;
  j["plan"] = bp.spec_name;
  auto& failures = j["failures"] = json::array();
  for (const auto& f : r.failures) {
    json item{{"name", name_of(bp, f)}};
    if (f.kind == Failure::Kind::cable) {
      item["kind"] = "cable";
      item["type"] = std::string(to_string(bp.cables[f.index].kind));
    } else {
      item["kind"] = "device";
      item["type"] = std::string(to_string(bp.devices[f.index].role));
    }
    item["description"] = describe(bp, f);
    failures.push_back(item);
  }
  auto& hosts = j["hosts"] = json::array();
  for (const auto& h : r.hosts) {
    const Device& d = bp.devices[h.host];
    json host{{"host", d.name},           {"pod", d.pod},
              {"segment", d.segment},     {"state", std::string(to_string(d.state))},
              {"failed", h.failed},       {"lost_gbps", h.lost_gbps},
              {"total_gbps", h.total_gbps}, {"lost_percent", percent_value(h.lost_gbps, h.total_gbps)}};
    auto& rails = host["rails"] = json::array();
    for (const auto& rail : h.rails) {
      json left = json::array();
      for (const auto& p : rail.left) {
        left.push_back({{"port", p.port}, {"tor", p.tor}, {"plane", or_null(p.plane)},
                        {"reach", std::string(to_string(p.reach))}});
      }
      rails.push_back({{"rail", rail.rail}, {"dark", rail.dark()}, {"ports_left", left}});
    }
    hosts.push_back(host);
  }
  auto& capacity = j["capacity"] = json::array();
  for (const auto& c : r.capacity) {
    capacity.push_back({{"scope", std::string(to_string(c.scope))},
                        {"pod", or_null(c.pod)},
                        {"segment", or_null(c.segment)},
                        {"plane", or_null(c.plane)},
                        {"tier", std::string(to_string(c.tier))},
                        {"lost_gbps", c.lost_gbps},
                        {"total_gbps", c.total_gbps},
                        {"lost_percent", percent_value(c.lost_gbps, c.total_gbps)}});
  }
  auto& outages = j["rail_outages"] = json::array();
  int single_points = 0;
  for (const auto& o : r.outages) {
    json names = json::array();
    for (int h : o.hosts) names.push_back(bp.devices[h].name);
    single_points += o.single_point() ? 1 : 0;
    outages.push_back({{"pod", o.pod},
                       {"segment", o.segment},
                       {"rail", o.rail},
                       {"kind", std::string(to_string(o.kind))},
                       {"causes", o.causes},
                       {"single_point_of_failure", o.single_point()},
                       {"hosts", names},
                       {"text", outage_sentence(bp, o)}});
  }
  j["summary"] = {{"hosts_affected", r.hosts.size()},
                  {"hosts_dark_on_a_rail", r.hosts_dark_on_a_rail()},
                  {"single_points_of_failure", single_points},
                  {"frontend_failures", r.frontend_failures}};
  return j;
}

}  // namespace hpn
