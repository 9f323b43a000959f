#include "host/host_profile.h"

#include "blueprint/input_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "blueprint/host_profile_format.h"

namespace hpn::host {

using nlohmann::json;

namespace {

constexpr int kMaxDepth = 32;
// Past any port or bond there is (800 Gb/s ports today).
constexpr int kMaxGbps = 1000000;

// 1-based line and column of byte `offset` (clamped to the text).
std::pair<size_t, size_t> line_col(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// "FILE:LINE:COL: message", then the line (control bytes shown as '?') and a caret.
Error located(std::string_view text, const std::string& source, size_t offset, const std::string& message) {
  auto [line, col] = line_col(text, offset);
  size_t start = offset > text.size() ? text.size() : offset;
  while (start > 0 && text[start - 1] != '\n') --start;
  size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  std::string shown(text.substr(start, std::min<size_t>(end - start, 160)));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return Error{fmt::format("{}:{}:{}: {}\n  {}\n  {}^", source, line, col, message, shown,
                           std::string(std::min<size_t>(col - 1, shown.size()), ' '))};
}

// Nesting deeper than any profile has is refused before the parser sees it.
std::optional<size_t> too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

struct Invalid {
  std::string pointer, message;
};

// Walks the parsed document; the first problem is thrown as Invalid and
// becomes the reader's error (never escapes this file).
class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  HostNetwork run() {
    // Unknown keys, missing ones and wrong types, as the one description has them.
    if (auto problem = check_profile_shape(root_)) fail(problem->pointer, problem->message);
    const json& r = root_;
    if (string(r, "", "format") != kProfileFormat) {
      fail("/format", "not an hpnctl host profile (expected \"hpnctl-host-profile\"; see hpnctl-profile(1))");
    }
    if (integer(r, "", "version", 0, 1000) != kProfileVersion) fail("/version", "profile version 1 is the only one this hpnctl reads");
    HostNetwork p;
    p.host = string(r, "", "host");
    if (p.host.empty() || p.host.size() > 253 ||
        std::any_of(p.host.begin(), p.host.end(), [](char c) { return c == '/' || c <= ' ' || c == 0x7f; })) {
      fail("/host", "not a host name");
    }
    p.node_id = static_cast<std::uint32_t>(integer(r, "", "node_id", 0, 16777214));
    array(r.at("path_classes"), "/path_classes", 0, 16);
    const json& bonds = array(member(r, "", "bonds"), "/bonds", 1, 64);
    std::set<std::string> names, ports;
    for (size_t i = 0; i < bonds.size(); ++i) {
      p.bonds.push_back(bond(bonds[i], fmt::format("/bonds/{}", i)));
      const auto& b = p.bonds.back();
      if (!names.insert(b.name).second) fail(fmt::format("/bonds/{}/name", i), fmt::format("bond {} named twice", b.name));
      for (size_t m = 0; m < b.members.size(); ++m) {
        const auto& port = b.members[m].port;
        if (names.count(port) != 0 || !ports.insert(port).second) {
          fail(fmt::format("/bonds/{}/members/{}/port", i, m), fmt::format("port {} is in two places", port));
        }
      }
    }
    for (const auto& b : p.bonds) {
      if (ports.count(b.name) != 0) fail("/bonds", fmt::format("{} is both a bond and a member port", b.name));
    }
    const json& sysctls = array(member(r, "", "sysctls"), "/sysctls", 0, 1024);
    for (size_t i = 0; i < sysctls.size(); ++i) p.sysctls.push_back(sysctl(sysctls[i], fmt::format("/sysctls/{}", i)));
    return p;
  }

 private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) {
    throw Invalid{pointer.empty() ? "/" : pointer, message};
  }

  const json& object(const json& v, const std::string& at) {
    if (!v.is_object()) fail(at, fmt::format("expected an object, found {}", json_type_name(v)));
    return v;
  }
  const json& array(const json& v, const std::string& at, size_t min, size_t max) {
    if (!v.is_array()) fail(at, fmt::format("expected an array, found {}", json_type_name(v)));
    if (v.size() < min || v.size() > max) fail(at, fmt::format("expected {} to {} entries, found {}", min, max, v.size()));
    return v;
  }
  const json& member(const json& obj, const std::string& at, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) fail(at, fmt::format("missing key '{}'", key));
    return *it;
  }
  std::string string(const json& obj, const std::string& at, const char* key, size_t max = 256) {
    const json& v = member(obj, at, key);
    const std::string here = fmt::format("{}/{}", at, key);
    if (!v.is_string()) fail(here, fmt::format("expected a string, found {}", json_type_name(v)));
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > max) fail(here, fmt::format("longer than {} characters", max));
    return s;
  }
  // A string or null (returned as empty).
  std::string optional_string(const json& obj, const std::string& at, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    return string(obj, at, key);
  }
  std::int64_t integer(const json& obj, const std::string& at, const char* key, std::int64_t min, std::int64_t max) {
    const json& v = member(obj, at, key);
    const std::string here = fmt::format("{}/{}", at, key);
    if (!v.is_number_integer()) fail(here, fmt::format("expected an integer, found {}", json_type_name(v)));
    std::int64_t n = 0;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(here, "out of range");
      n = static_cast<std::int64_t>(u);
    } else {
      n = v.get<std::int64_t>();
    }
    if (n < min || n > max) fail(here, fmt::format("{} is outside {}..{}", n, min, max));
    return n;
  }
  std::string ifname(const json& obj, const std::string& at, const char* key) {
    std::string name = string(obj, at, key);
    // The kernel's dev_valid_name(): 1..15 bytes, not "." or "..", no '/', ':' or space.
    const bool valid = !name.empty() && name.size() < 16 && name != "." && name != ".." &&
                       std::none_of(name.begin(), name.end(), [](char c) {
                         return c == '/' || c == ':' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
                       });
    if (!valid) fail(fmt::format("{}/{}", at, key), fmt::format("'{}' is not an interface name (1 to 15 characters, no '/', ':' or space)", name));
    return name;
  }
  std::string address(const json& obj, const std::string& at, const char* key, int family) {
    const std::string text = optional_string(obj, at, key);
    if (text.empty()) return {};
    std::string canonical;
    if (!parse_ip_address(text, family, canonical)) fail(fmt::format("{}/{}", at, key), fmt::format("'{}' is not an IPv{} address", text, family));
    return canonical;
  }
  std::optional<IpPrefix> prefix(const json& obj, const std::string& at, const char* key, int family) {
    const std::string text = optional_string(obj, at, key);
    if (text.empty()) return std::nullopt;
    IpPrefix p;
    if (!parse_ip_prefix(text, family, p)) fail(fmt::format("{}/{}", at, key), fmt::format("'{}' is not an IPv{} prefix", text, family));
    return p;
  }

  BondMember member_port(const json& v, const std::string& at) {
    object(v, at);
    BondMember m;
    m.port = ifname(v, at, "port");
    // What the plan says of the port: read back as written, acted on by nothing.
    m.speed_gbps = static_cast<int>(integer(v, at, "speed_gbps", 0, kMaxGbps));
    m.cable = optional_string(v, at, "cable");
    m.peer = optional_string(v, at, "peer");
    m.peer_port = optional_string(v, at, "peer_port");
    if (!v.at("plane").is_null()) m.plane = static_cast<int>(integer(v, at, "plane", 0, 255));
    m.gateway_ipv4 = address(v, at, "gateway_ipv4", 4);
    m.gateway_ipv6 = address(v, at, "gateway_ipv6", 6);
    if (const std::string mac = optional_string(v, at, "gateway_mac"); !mac.empty()) {
      Mac b;
      if (!parse_mac(mac, b)) fail(at + "/gateway_mac", fmt::format("'{}' is not a MAC address", mac));
      m.gateway_mac = b;
    }
    if (v.contains("match")) {
      const std::string mat = at + "/match";
      const json& match = object(v["match"], mat);
      PortMatch k;
      if (match.contains("ifname") && !match["ifname"].is_null()) k.ifname = ifname(match, mat, "ifname");
      if (const std::string mac = optional_string(match, mat, "mac"); !mac.empty()) {
        Mac b;
        if (!parse_mac(mac, b)) fail(mat + "/mac", fmt::format("'{}' is not a MAC address", mac));
        k.mac = b;
      }
      if (k.ifname.empty() && !k.mac) fail(mat, "names neither an interface nor a MAC");
      k.pci = optional_string(match, mat, "pci");
      k.rdma = optional_string(match, mat, "rdma");
      k.by = string(match, mat, "by");
      m.match = std::move(k);
    }
    return m;
  }

  Bond bond(const json& v, const std::string& at) {
    object(v, at);
    Bond b;
    b.name = ifname(v, at, "name");
    b.nic = static_cast<int>(integer(v, at, "nic", 0, 255));
    const std::string network = string(v, at, "network");
    if (network != "backend" && network != "frontend") fail(at + "/network", "only \"backend\" or \"frontend\"");
    b.backend = network == "backend";
    const json& members = array(member(v, at, "members"), at + "/members", 1, 8);
    for (size_t i = 0; i < members.size(); ++i) b.members.push_back(member_port(members[i], fmt::format("{}/members/{}", at, i)));
    const std::string mac = string(v, at, "mac");
    if (!parse_mac(mac, b.mac) || (b.mac[0] & 1) != 0 || b.mac == Mac{}) {
      fail(at + "/mac", fmt::format("'{}' is not a unicast MAC address", mac));
    }
    b.mtu = static_cast<int>(integer(v, at, "mtu", 1280, 9216));
    b.ipv4 = prefix(v, at, "ipv4", 4);
    b.ipv6 = prefix(v, at, "ipv6", 6);
    const std::string mode = string(v, at, "mode");
    if (!parse_bond_mode(mode, b.mode)) fail(at + "/mode", fmt::format("'{}' is not balance-xor, 802.3ad or active-backup", mode));
    const std::string hash = optional_string(v, at, "xmit_hash_policy");
    if (!hash.empty() && hash != "layer3+4") fail(at + "/xmit_hash_policy", fmt::format("'{}': only layer3+4 (or null)", hash));
    b.layer34 = !hash.empty();
    b.speed_gbps = static_cast<int>(integer(v, at, "speed_gbps", 0, kMaxGbps));
    const std::string mon_at = at + "/monitor";
    const json& mon = object(member(v, at, "monitor"), mon_at);
    const std::string kind = string(mon, mon_at, "kind");
    if (kind == "arp") {
      if (b.mode == BondMode::lacp) fail(mon_at + "/kind", "the kernel refuses ARP monitoring in 802.3ad");
      b.arp_monitor = true;
      b.arp_interval_ms = static_cast<int>(integer(mon, mon_at, "arp_interval_ms", 1, 65535));
      const json& targets = array(member(mon, mon_at, "arp_ip_targets"), mon_at + "/arp_ip_targets", 1, 16);
      for (size_t i = 0; i < targets.size(); ++i) {
        const std::string here = fmt::format("{}/arp_ip_targets/{}", mon_at, i);
        std::string canonical;
        if (!targets[i].is_string() || !parse_ip_address(targets[i].get_ref<const std::string&>(), 4, canonical)) {
          fail(here, "expected an IPv4 address");
        }
        b.arp_targets.push_back(canonical);
      }
      const std::string validate = string(mon, mon_at, "arp_validate");
      if (validate != "all" && validate != "active") fail(mon_at + "/arp_validate", "only \"all\" or \"active\"");
      b.arp_validate_all = validate == "all";
      if (string(mon, mon_at, "arp_all_targets") != "any") fail(mon_at + "/arp_all_targets", "only \"any\" is supported");
    } else if (kind == "mii") {
      b.miimon_ms = static_cast<int>(integer(mon, mon_at, "miimon_ms", 1, 65535));
    } else {
      fail(mon_at + "/kind", fmt::format("'{}' is not arp or mii", kind));
    }
    if (v.contains("lacp_rate")) {
      if (b.mode != BondMode::lacp) fail(at + "/lacp_rate", "lacp_rate is for 802.3ad only");
      if (string(v, at, "lacp_rate") != "fast") fail(at + "/lacp_rate", "only \"fast\"");
      b.lacp_fast = true;
    }
    b.table = table(v, at);
    const json& routes = array(member(v, at, "routes"), at + "/routes", 0, 64);
    for (size_t i = 0; i < routes.size(); ++i) b.routes.push_back(route(routes[i], fmt::format("{}/routes/{}", at, i)));
    const json& rules = array(member(v, at, "rules"), at + "/rules", 0, 64);
    for (size_t i = 0; i < rules.size(); ++i) b.rules.push_back(rule(rules[i], fmt::format("{}/rules/{}", at, i)));
    b.rdma_device = optional_string(v, at, "rdma_device");
    return b;
  }

  int family(const json& v, const std::string& at) {
    const auto f = integer(v, at, "family", 4, 6);
    if (f != 4 && f != 6) fail(at + "/family", "expected 4 or 6");
    return static_cast<int>(f);
  }
  // Not 0 (unspecified) or 255 (local): routes there would break the host.
  int table(const json& v, const std::string& at) {
    const auto t = integer(v, at, "table", 1, 0x7fffffff);
    if (t == 255) fail(at + "/table", "table 255 is the kernel's local table");
    return static_cast<int>(t);
  }

  BondRoute route(const json& v, const std::string& at) {
    object(v, at);
    BondRoute r;
    r.family = family(v, at);
    auto to = prefix(v, at, "to", r.family);
    if (!to) fail(at + "/to", "missing destination");
    r.to = *to;
    const json& via = array(member(v, at, "via"), at + "/via", 1, 16);
    for (size_t i = 0; i < via.size(); ++i) {
      std::string canonical;
      if (!via[i].is_string() || !parse_ip_address(via[i].get_ref<const std::string&>(), r.family, canonical)) {
        fail(fmt::format("{}/via/{}", at, i), fmt::format("expected an IPv{} address", r.family));
      }
      if (std::find(r.via.begin(), r.via.end(), canonical) != r.via.end()) fail(fmt::format("{}/via/{}", at, i), "next hop given twice");
      r.via.push_back(canonical);
    }
    r.table = table(v, at);
    return r;
  }

  BondRule rule(const json& v, const std::string& at) {
    object(v, at);
    BondRule r;
    r.family = family(v, at);
    auto from = prefix(v, at, "from", r.family);
    if (!from) fail(at + "/from", "missing source prefix");
    r.from = *from;
    r.table = table(v, at);
    r.priority = static_cast<int>(integer(v, at, "priority", 1, 32765));
    return r;
  }

  Sysctl sysctl(const json& v, const std::string& at) {
    object(v, at);
    Sysctl s{string(v, at, "key", 128), string(v, at, "value", 20)};
    // net.ipv4.* or net.ipv6.*, components of [a-z0-9_-]: the key becomes a
    // path under /proc/sys, so nothing else may reach the file system.
    bool ok = s.key.rfind("net.ipv4.", 0) == 0 || s.key.rfind("net.ipv6.", 0) == 0;
    std::string_view rest(s.key);
    size_t start = 0;
    while (ok) {
      const size_t dot = rest.find('.', start);
      const std::string_view part = rest.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
      ok = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
      });
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    if (!ok) fail(at + "/key", fmt::format("'{}' is not a net.ipv4 or net.ipv6 sysctl", s.key));
    if (s.value.empty() || !std::all_of(s.value.begin(), s.value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      fail(at + "/value", fmt::format("'{}' is not a decimal number", s.value));
    }
    return s;
  }

  const json& root_;
};

}  // namespace

Result<HostNetwork> parse_apply_profile(std::string_view text, const std::string& source) {
  if (text.size() > kMaxProfileBytes) {
    return Error{fmt::format("{}: {} bytes is too large for a host profile (at most {})", source, text.size(), kMaxProfileBytes)};
  }
  if (auto at = too_deep(text)) return located(text, source, *at, fmt::format("nested deeper than {} levels", kMaxDepth));
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // what(): "[json.exception.parse_error.101] parse error at line 3, column 5: MESSAGE"
    std::string message = e.what();
    if (auto colon = message.find(": ", message.find("column")); colon != std::string::npos) message = message.substr(colon + 2);
    return located(text, source, e.byte > 0 ? e.byte - 1 : 0, message);
  } catch (const json::exception& e) {
    // out_of_range: a number past double ("1e400"); it has no position.
    std::string message = e.what();
    if (auto bracket = message.find("] "); bracket != std::string::npos) message = message.substr(bracket + 2);
    return Error{fmt::format("{}: {}", source, message)};
  }
  try {
    auto profile = Checker(doc).run();
    profile.source = source;
    return profile;
  } catch (const Invalid& invalid) {
    return Error{fmt::format("{}: {}: {}", source, invalid.pointer, invalid.message)};
  }
}

Result<HostNetwork> read_apply_profile(const std::string& path) {
  auto text = read_input_file(path, "a host profile", kMaxProfileBytes);
  if (!text) return text.error();
  return parse_apply_profile(text.value(), path);
}

}  // namespace hpn::host
