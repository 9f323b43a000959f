#include "hostconfig/nic_map.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "blueprint/input_file.h"
#include "blueprint/names.h"
#include "planner/yaml_lines.h"

namespace hpn {

namespace {

using nlohmann::json;

constexpr size_t kMaxMapBytes = 4 << 20;  // a host with 4,000 interfaces is far under this
constexpr size_t kMaxInterfaces = 4096;

// An interface as `ip -j link` lists it.
struct Seen {
  std::string ifname, mac, pci;
  bool permanent = false;
  std::optional<std::array<long, 5>> order;  // domain, bus, slot, function, port
  std::string order_from;
};

// "0000:3b:00.0" -> {0, 0x3b, 0, 0}.
std::optional<std::array<long, 5>> pci_order(const std::string& pci) {
  static const std::regex re("^([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\\.([0-7])$");
  std::smatch m;
  if (!std::regex_match(pci, m, re)) return std::nullopt;
  return std::array<long, 5>{std::stol(m[1], nullptr, 16), std::stol(m[2], nullptr, 16),
                             std::stol(m[3], nullptr, 16), std::stol(m[4]), 0};
}

// A predictable name with a PCI path: en[P<domain>]p<bus>s<slot>[f<function>][n<port>|np<port>].
std::optional<std::array<long, 5>> name_order(const std::string& name) {
  static const std::regex re("^en(?:P([0-9]{1,4}))?p([0-9]{1,3})s([0-9]{1,3})(?:f([0-9]))?(?:np?([0-9]{1,2}))?$");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  auto num = [&](int i) { return m[i].matched ? std::stol(m[i]) : 0L; };
  return std::array<long, 5>{num(1), num(2), num(3), num(4), num(5)};
}

bool is_mac(const std::string& s) {
  static const std::regex re("^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$");
  return std::regex_match(s, re);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Any name the kernel gives an interface (net/core/dev.c dev_valid_name():
// under IFNAMSIZ, no '/', ':' or whitespace, not '.' or '..'), in ASCII:
// what tells `ip -j link` output from something else.
bool kernel_ifname(const std::string& s) {
  if (s.empty() || s.size() > 15 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f && c != '/' && c != ':'; });
}

enum class Kind { ip_link, rdma_link, mapping };

struct Input {
  std::vector<Seen> links;                        // ip -j link: the Ethernet ports
  std::map<std::string, std::string> rdma;        // netdev -> RDMA device
  std::map<std::string, NicPort> mapping;         // planned -> what the YAML says
  std::vector<std::string> mapping_order;
};

Status read_ip_link(const json& arr, const std::string& name, Input& in) {
  if (arr.size() > kMaxInterfaces) return Error{fmt::format("{}: more than {} interfaces", name, kMaxInterfaces)};
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& l = arr[i];
    if (!l.is_object()) return Error{fmt::format("{}: /{}: not an interface object", name, i)};
    const std::string ifname = str(l, "ifname");
    if (!kernel_ifname(ifname)) {
      return Error{fmt::format("{}: /{}/ifname: '{}' is not an interface name", name, i, printable(ifname))};
    }
    if (str(l, "link_type") != "ether") continue;  // lo, tunnels, InfiniBand
    // Not a port: what the kernel makes on top of ports (ip -d names the kind).
    if (auto li = l.find("linkinfo"); li != l.end() && li->is_object() && li->contains("info_kind")) {
      const std::string kind = str(*li, "info_kind");
      if (kind == "bond" || kind == "bridge" || kind == "vlan" || kind == "macvlan" || kind == "team" ||
          kind == "vxlan" || kind == "dummy") {
        continue;
      }
    }
    // A port's name goes into .link files and udev rules (blueprint/names.h).
    if (std::string problem = ifname_problem(ifname); !problem.empty()) {
      return Error{fmt::format("{}: /{}/ifname: '{}': hpnctl does not write this name into .link files and udev "
                               "rules: {}; map the port by its MAC in a YAML file instead",
                               name, i, printable(ifname), problem)};
    }
    Seen s;
    s.ifname = ifname;
    s.mac = lower(str(l, "address"));
    if (const std::string perm = lower(str(l, "permaddr")); !perm.empty()) s.mac = perm;  // enslaved: the kernel shows both
    if (!is_mac(s.mac)) return Error{fmt::format("{}: /{}: {} has no MAC address", name, i, ifname)};
    if (str(l, "parentbus") == "pci") {
      s.pci = lower(str(l, "parentdev"));
      s.order = pci_order(s.pci);
      s.order_from = "PCI order";
      s.permanent = true;
      if (s.order) {
        // Ports sharing one PCI function: their name's port number orders them.
        if (auto n = name_order(ifname)) (*s.order)[4] = (*n)[4];
      }
    }
    if (!s.order) {
      s.order = name_order(ifname);
      s.order_from = "PCI path in its name";
    }
    in.links.push_back(s);
  }
  return {};
}

Status read_rdma_link(const json& arr, const std::string& name, Input& in) {
  if (arr.size() > kMaxInterfaces) return Error{fmt::format("{}: more than {} RDMA links", name, kMaxInterfaces)};
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& l = arr[i];
    if (!l.is_object()) return Error{fmt::format("{}: /{}: not an RDMA link object", name, i)};
    const std::string dev = str(l, "ifname"), netdev = str(l, "netdev");
    if (netdev.empty()) continue;  // a port without a netdev (InfiniBand)
    if (!kernel_ifname(netdev) || !is_safe_name(dev)) {
      return Error{fmt::format("{}: /{}: '{}' on '{}' is not an RDMA device on an interface", name, i,
                               printable(dev), printable(netdev))};
    }
    in.rdma[netdev] = dev;
  }
  return {};
}

Status read_mapping(const std::string& text, const std::string& name, const std::vector<std::string>& planned,
                    Input& in) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}:{}:{}: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg)};
  }
  if (auto spilled = first_spilled_scalar(root, text)) {
    return Error{fmt::format("{}:{}:{}: {}", name, spilled->line, spilled->column, spilled->message)};
  }
  if (!root.IsMap()) {
    return Error{fmt::format("{}: not ip -j link, rdma -j link, or a mapping of planned ports (nic1p1: enp59s0f0np0)",
                             name)};
  }
  for (const auto& kv : root) {
    const auto line = kv.first.Mark().line + 1;
    if (!kv.first.IsScalar()) return Error{fmt::format("{}:{}: a key must be a planned port", name, line)};
    const std::string port = kv.first.as<std::string>();
    if (std::find(planned.begin(), planned.end(), port) == planned.end()) {
      std::string list;
      for (const auto& p : planned) list += (list.empty() ? "" : ", ") + p;
      return Error{fmt::format("{}:{}: '{}' is not a port of this host (it has {})", name, line, printable(port), list)};
    }
    NicPort p;
    p.planned = port;
    p.how = "mapping";
    try {
      if (kv.second.IsScalar()) {
        p.ifname = kv.second.as<std::string>();
      } else if (kv.second.IsMap()) {
        for (const auto& f : kv.second) {
          const std::string key = f.first.as<std::string>();
          const std::string value = f.second.IsScalar() ? f.second.as<std::string>() : std::string();
          if (key == "ifname") p.ifname = value;
          else if (key == "mac") p.mac = lower(value);
          else if (key == "pci") p.pci = lower(value);
          else if (key == "rdma") p.rdma = value;
          else return Error{fmt::format("{}:{}: {}: unknown key '{}' (ifname, mac, pci, rdma)", name,
                                        f.first.Mark().line + 1, port, printable(key))};
        }
      } else {
        return Error{fmt::format("{}:{}: {}: give an interface name or {{ifname, mac, pci, rdma}}", name, line, port)};
      }
    } catch (const YAML::Exception& e) {
      return Error{fmt::format("{}:{}:{}: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg)};
    }
    // Both names go into .link files, udev rules and netplan (blueprint/names.h).
    if (std::string problem = ifname_problem(p.ifname); !p.ifname.empty() && !problem.empty()) {
      return Error{fmt::format("{}:{}: {}: '{}' is not an interface name hpnctl writes: {}", name, line, port,
                               printable(p.ifname), problem)};
    }
    if (!p.mac.empty() && !is_mac(p.mac)) {
      return Error{fmt::format("{}:{}: {}: '{}' is not a MAC address", name, line, port, printable(p.mac))};
    }
    if (!p.pci.empty() && !pci_order(p.pci)) {
      return Error{fmt::format("{}:{}: {}: '{}' is not a PCI address (0000:3b:00.0)", name, line, port, printable(p.pci))};
    }
    if (std::string problem = name_problem(p.rdma); !p.rdma.empty() && !problem.empty()) {
      return Error{fmt::format("{}:{}: {}: '{}' is not an RDMA device name hpnctl writes: {}", name, line, port,
                               printable(p.rdma), problem)};
    }
    if (p.ifname.empty() && p.mac.empty()) {
      return Error{fmt::format("{}:{}: {}: give its interface name or its MAC", name, line, port)};
    }
    if (in.mapping.count(port)) return Error{fmt::format("{}:{}: {} is mapped twice", name, line, port)};
    in.mapping[port] = p;
    in.mapping_order.push_back(port);
  }
  return {};
}

Status read_one(const std::string& name, const std::string& text, const std::vector<std::string>& planned, Input& in) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    json arr = json::parse(text, nullptr, false);
    if (arr.is_discarded() || !arr.is_array()) {
      // Locate the error as the JSON readers elsewhere do: the byte offset.
      try {
        arr = json::parse(text);
      } catch (const json::parse_error& e) {
        return Error{fmt::format("{}: byte {}: not JSON: {}", name, e.byte,
                                 std::string(e.what()).substr(std::string(e.what()).rfind(':') + 2))};
      }
      return Error{name + ": not a JSON array"};
    }
    if (arr.empty()) return Error{name + ": an empty list: no interfaces"};
    const json& head = arr.front();
    if (head.is_object() && head.contains("link_type")) return read_ip_link(arr, name, in);
    if (head.is_object() && head.contains("port") && head.contains("ifname")) return read_rdma_link(arr, name, in);
    return Error{name + ": a JSON list, but neither `ip -j link` nor `rdma -j link` output"};
  }
  return read_mapping(text, name, planned, in);
}

std::string list_of(const std::vector<Seen>& links) {
  std::string s;
  for (const auto& l : links) s += (s.empty() ? "" : ", ") + l.ifname;
  return s.empty() ? "none" : s;
}

}  // namespace

const NicPort* NicMap::find(const std::string& planned) const {
  for (const auto& p : ports) {
    if (p.planned == planned) return &p;
  }
  return nullptr;
}

Result<NicMap> parse_nic_map(const std::vector<std::pair<std::string, std::string>>& texts,
                             const std::vector<std::string>& planned) {
  Input in;
  NicMap map;
  for (const auto& [name, text] : texts) {
    if (text.find('\0') != std::string::npos) return Error{name + ": binary content, not a NIC map"};
    if (auto st = read_one(name, text, planned, in); !st) return st.error();
    map.sources.push_back(name);
  }
  const std::string where = map.sources.empty() ? std::string("--nic-map") : map.sources.front();

  // The ports by order, unless every planned port is in the mapping.
  std::vector<Seen> ordered = in.links;
  const bool all_mapped = std::all_of(planned.begin(), planned.end(), [&](const std::string& p) { return in.mapping.count(p) > 0; });
  if (!all_mapped) {
    if (in.links.empty()) {
      std::string missing;
      for (const auto& p : planned) {
        if (!in.mapping.count(p)) missing += (missing.empty() ? "" : ", ") + p;
      }
      return Error{fmt::format("{}: {} not mapped, and no `ip -j link` output to map them by order", where, missing)};
    }
    // Ports a mapping names are not taken by order.
    std::vector<Seen> free;
    for (const auto& l : in.links) {
      bool named = false;
      for (const auto& [port, m] : in.mapping) named = named || m.ifname == l.ifname || (!m.mac.empty() && m.mac == l.mac);
      if (!named) free.push_back(l);
    }
    for (const auto& l : free) {
      if (!l.order) {
        return Error{fmt::format("{}: cannot order {}: no PCI address (give `ip -j -d link`) and no PCI path in "
                                 "its name; map the ports in a YAML file instead",
                                 where, l.ifname)};
      }
    }
    std::stable_sort(free.begin(), free.end(), [](const Seen& a, const Seen& b) { return *a.order < *b.order; });
    size_t unmapped = 0;
    for (const auto& p : planned) unmapped += in.mapping.count(p) ? 0 : 1;
    if (free.size() != unmapped) {
      return Error{fmt::format("{}: the plan has {} ports to map by order, and this host {} Ethernet ports ({}); "
                               "map them in a YAML file (nic1p1: IFNAME)",
                               where, unmapped, free.size(), list_of(free))};
    }
    ordered = std::move(free);
  }

  size_t next = 0;
  for (const auto& planned_port : planned) {
    NicPort p;
    if (auto it = in.mapping.find(planned_port); it != in.mapping.end()) {
      p = it->second;
      // Fill in from ip -j link what the mapping left out.
      for (const auto& l : in.links) {
        if ((!p.ifname.empty() && l.ifname == p.ifname) || (p.ifname.empty() && l.mac == p.mac)) {
          if (p.ifname.empty()) p.ifname = l.ifname;
          if (p.mac.empty()) p.mac = l.mac;
          if (p.pci.empty()) p.pci = l.pci;
          p.permanent = l.permanent;
        }
      }
    } else {
      const Seen& l = ordered[next++];
      p.planned = planned_port;
      p.ifname = l.ifname;
      p.mac = l.mac;
      p.pci = l.pci;
      p.permanent = l.permanent;
      p.how = l.order_from;
    }
    if (p.rdma.empty()) {
      if (auto r = in.rdma.find(p.ifname); r != in.rdma.end()) p.rdma = r->second;
    }
    map.ports.push_back(p);
  }
  // One interface for one planned port.
  for (size_t i = 0; i < map.ports.size(); ++i) {
    for (size_t j = i + 1; j < map.ports.size(); ++j) {
      const NicPort &a = map.ports[i], &b = map.ports[j];
      if ((!a.ifname.empty() && a.ifname == b.ifname) || (!a.mac.empty() && a.mac == b.mac)) {
        return Error{fmt::format("{}: {} and {} are both mapped to {}", where, a.planned, b.planned,
                                 a.ifname.empty() ? a.mac : a.ifname)};
      }
    }
  }
  return map;
}

Result<NicMap> load_nic_map(const std::vector<std::string>& files, const std::vector<std::string>& planned) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& path : files) {
    auto text = read_input_file(path, "a NIC map", kMaxMapBytes);
    if (!text) return text.error();
    texts.emplace_back(path, std::move(text.value()));
  }
  return parse_nic_map(texts, planned);
}

}  // namespace hpn
