#include "probe/agent_options.h"

#include "blueprint/input_file.h"
#include "blueprint/json_shape.h"
#include "probe/payload.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "probe/socket_udp.h"

namespace hpn::probe {

hpn::Status PortNames::add(const std::string& ifname, const std::string& port) {
  if (ifname.empty() || port.empty()) return Error{fmt::format("'{}={}': interface and port names must not be empty", ifname, port)};
  if (auto it = by_ifname_.find(ifname); it != by_ifname_.end()) {
    return Error{fmt::format("interface {} is mapped twice ({} and {})", ifname, it->second, port)};
  }
  if (auto it = by_port_.find(port); it != by_port_.end()) {
    return Error{fmt::format("port {} is mapped from two interfaces ({} and {})", port, it->second, ifname)};
  }
  by_ifname_[ifname] = port;
  by_port_[port] = ifname;
  return {};
}

std::string PortNames::port_of(const std::string& ifname) const {
  auto it = by_ifname_.find(ifname);
  return it == by_ifname_.end() ? ifname : it->second;
}

std::optional<std::string> PortNames::interface_of(const std::string& port) const {
  auto it = by_port_.find(port);
  if (it == by_port_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

namespace {

// "key=value" split at the first '='; both sides non-empty.
bool split_pair(const std::string& item, std::string& key, std::string& value) {
  const auto eq = item.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) return false;
  key = item.substr(0, eq);
  value = item.substr(eq + 1);
  return true;
}

}  // namespace

hpn::Status parse_port_names(std::string_view list, PortNames& names) {
  for (const auto& item : split_list(list)) {
    std::string ifname, port;
    if (!split_pair(item, ifname, port)) return Error{fmt::format("'{}': expected IFNAME=PORTNAME", item)};
    if (auto s = names.add(ifname, port); !s) return s;
  }
  return {};
}

hpn::Status port_names_from_status(std::string_view text, const std::string& device, const std::string& source,
                                   PortNames& names) {
  using json = nlohmann::json;
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Error{source + ": not a JSON object"};
  auto devices = doc.find("devices");
  if (devices == doc.end() || !devices->is_array()) return Error{source + ": no \"devices\" list"};
  for (const auto& d : *devices) {
    if (!d.is_object() || d.value("name", json()) != device) continue;
    auto ports = d.find("ports");
    if (ports == d.end() || !ports->is_array()) return Error{fmt::format("{}: device {} has no \"ports\" list", source, device)};
    for (const auto& p : *ports) {
      const json port = p.is_object() ? p.value("port", json()) : json();
      const json ifname = p.is_object() ? p.value("ifname", json()) : json();
      if (!port.is_string() || !ifname.is_string()) {
        return Error{fmt::format("{}: a port of {} lacks \"port\" or \"ifname\" text", source, device)};
      }
      if (auto s = names.add(ifname.get<std::string>(), port.get<std::string>()); !s) {
        return Error{fmt::format("{}: {}", source, s.error().message)};
      }
    }
    return {};
  }
  return Error{fmt::format("{}: no device named '{}' (see --device-name)", source, device)};
}

hpn::Status read_port_names_file(const std::string& path, const std::string& device, PortNames& names) {
  auto text = hpn::read_input_file(path, "a lab status file", std::size_t{64} << 20);
  if (!text) return text.error();
  return port_names_from_status(text.value(), device, path, names);
}

hpn::Result<std::vector<Destination>> parse_destinations(std::string_view list) {
  std::vector<Destination> out;
  std::set<std::string> seen;
  for (const auto& item : split_list(list)) {
    std::string device, address;
    if (!split_pair(item, device, address)) return Error{fmt::format("'{}': expected HOST=ADDRESS", item)};
    int hops = 0;
    if (const auto at = address.find('@'); at != std::string::npos) {
      const std::string text = address.substr(at + 1);
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), hops);
      if (ec != std::errc() || end != text.data() + text.size() || hops < 1 || hops > 255) {
        return Error{fmt::format("'{}': the hop limit after '@' must be 1 to 255", item)};
      }
      address.resize(at);
    }
    auto canonical = canonical_ipv6(address);
    if (!canonical) return Error{fmt::format("'{}': {}", item, canonical.error().message)};
    if (!seen.insert(*canonical + "@" + std::to_string(hops)).second) {
      return Error{fmt::format("'{}': address {} is listed twice", item, *canonical)};
    }
    out.push_back({device, *canonical, hops});
  }
  if (out.empty()) return Error{"no destination given"};
  return out;
}

namespace {

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

}  // namespace

hpn::Result<PortRange> parse_port_range(std::string_view text) {
  const auto dash = text.find('-');
  const auto first = parse_port(text.substr(0, dash));
  const auto last = dash == std::string_view::npos ? first : parse_port(text.substr(dash + 1));
  if (!first || !last) return Error{fmt::format("'{}': expected a UDP port or a range A-B of ports 1-65535", text)};
  if (*first > *last) return Error{fmt::format("'{}': the range ends before it starts", text)};
  return PortRange{*first, *last};
}

hpn::Result<SendPlan> read_send_plan(const std::string& path) {
  auto text = hpn::read_input_file(path, "a send plan", kMaxSendPlanBytes);
  if (!text) return text.error();
  return parse_send_plan(text.value(), path);
}

hpn::Result<SendPlan> parse_send_plan(std::string_view text, const std::string& path) {
  if (text.size() > kMaxSendPlanBytes) {
    return hpn::Error{fmt::format("{}: too large for a send plan (more than {} bytes)", hpn::printable(path), kMaxSendPlanBytes)};
  }
  SendPlan plan;
  std::map<std::string, std::size_t> from_index, to_index;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto where = [&](const std::string& what) { return hpn::Error{fmt::format("{}:{}: {}", path, number, what)}; };
    // A line is one flat object whose longest value is a list of at most
    // 65,535 source ports: deeper or longer is not a plan's line, and is
    // refused before its DOM is built.
    if (auto st = hpn::check_json_bounds(line, fmt::format("{}:{}", path, number), {4, 70'000, "a send plan's line"});
        !st) {
      return st.error();
    }
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return where("not a JSON object");
    for (const auto& [key, value] : j.items()) {
      if (key != "entry" && key != "from" && key != "to" && key != "source_ports" && key != "train") {
        return where("unknown key '" + key + "'");
      }
    }
    const auto entry = j.find("entry"), from = j.find("from"), to = j.find("to"), ports = j.find("source_ports");
    std::uint32_t train = 0;
    if (const auto t = j.find("train"); t != j.end()) {
      if (!t->is_number_unsigned() || t->get<std::uint64_t>() < 1 || t->get<std::uint64_t>() > kMaxTrainLength) {
        return where(fmt::format("'train' must be a number of datagrams, 1 to {}", kMaxTrainLength));
      }
      train = static_cast<std::uint32_t>(t->get<std::uint64_t>());
    }
    if (entry == j.end() || !entry->is_number_unsigned()) return where("'entry' must be an integer of 0 or more");
    if (from == j.end() || !from->is_string() || from->get_ref<const std::string&>().empty()) {
      return where("'from' must name a port");
    }
    if (to == j.end() || !to->is_string()) return where("'to' must be HOST=ADDRESS");
    auto destination = parse_destinations(to->get<std::string>());
    if (!destination) return where("'to': " + destination.error().message);
    if (destination->size() != 1) return where("'to' must be one HOST=ADDRESS");
    if (ports == j.end() || !ports->is_array() || ports->empty()) return where("'source_ports' must be a list of ports");
    const std::string& port = from->get_ref<const std::string&>();
    const auto f = from_index.try_emplace(port, plan.from.size()).first->second;
    if (f == plan.from.size()) plan.from.push_back(port);
    const std::string key = to->get<std::string>();
    const auto t = to_index.try_emplace(key, plan.to.size()).first->second;
    if (t == plan.to.size()) plan.to.push_back(destination->front());
    for (const auto& p : *ports) {
      if (!p.is_number_unsigned() || p.get<std::uint64_t>() < 1 || p.get<std::uint64_t>() > 65535) {
        return where("'source_ports' must be UDP ports, 1 to 65535");
      }
      plan.probes.push_back({f, t, static_cast<std::uint16_t>(p.get<std::uint64_t>()), entry->get<std::int64_t>(), train});
    }
  }
  if (plan.probes.empty()) return hpn::Error{fmt::format("{}: no probe in the plan file", path)};
  return plan;
}

}  // namespace hpn::probe
