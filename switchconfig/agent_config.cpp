#include "switchconfig/agent_config.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>

#include "blueprint/diagnostics.h"

namespace hpn::switchconfig {

namespace {

// A Linux interface name (dev_valid_name()): 1 to 15 bytes, not "." or
// "..", no '/', ':' or whitespace.
bool valid_ifname(const std::string& name) {
  if (name.empty() || name.size() > 15 || name == "." || name == "..") return false;
  return std::none_of(name.begin(), name.end(),
                      [](unsigned char c) { return c == '/' || c == ':' || c <= ' ' || c == 0x7f; });
}

}  // namespace

bool HostPrefix::contains(int address_family, const std::uint8_t* address) const {
  if (address_family != family) return false;
  for (int bit = 0; bit < length; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((address[bit / 8] & mask) != (bytes[static_cast<size_t>(bit / 8)] & mask)) return false;
  }
  return true;
}

Result<HostPrefix> parse_host_prefix(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Error{fmt::format("'{}' is not a prefix: {}", text, why)};
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad("no /length");
  HostPrefix p;
  p.text = std::string(text);
  const std::string address(text.substr(0, slash));
  p.family = address.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (inet_pton(p.family, address.c_str(), p.bytes.data()) != 1) return bad("not an IPv4 or IPv6 address");
  const std::string_view length = text.substr(slash + 1);
  const int width = p.family == AF_INET ? 32 : 128;
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), p.length);
  if (length.empty() || ec != std::errc{} || end != length.data() + length.size() || p.length < 0 ||
      p.length > width) {
    return bad(fmt::format("the length must be 0 to {}", width));
  }
  for (int bit = p.length; bit < width; ++bit) {
    if (p.bytes[static_cast<size_t>(bit / 8)] & (0x80 >> (bit % 8))) return bad("bits set past the length");
  }
  return p;
}

Result<AgentConfig> agent_config(const SwitchConfig& c) {
  if (!c.has_gateway) return Error{fmt::format("{} has no gateway: it learns no hosts", c.name)};
  AgentConfig a;
  a.switch_name = c.name;
  for (const auto& port : c.ports) {
    if (port.learns_hosts) a.ports.push_back(port.ifname);
  }
  for (const auto& pool : {c.gateway.pool4, c.gateway.pool6}) {
    if (pool.empty()) continue;
    auto prefix = parse_host_prefix(pool);
    if (!prefix) return Error{fmt::format("{}: gateway pool {}", c.name, prefix.error().message)};
    a.prefixes.push_back(std::move(prefix.value()));
  }
  return a;
}

std::string write_agent_config(const AgentConfig& a) {
  nlohmann::ordered_json j;
  std::vector<std::string> prefixes;
  for (const auto& p : a.prefixes) prefixes.push_back(p.text);
  // kAgentConfigKeys, in order.
  j[kAgentConfigKeys[0]] = kAgentConfigFormat;
  j[kAgentConfigKeys[1]] = kAgentConfigVersion;
  j[kAgentConfigKeys[2]] = a.switch_name;
  j[kAgentConfigKeys[3]] = a.ports;
  j[kAgentConfigKeys[4]] = prefixes;
  j[kAgentConfigKeys[5]] = a.table;
  j[kAgentConfigKeys[6]] = a.protocol;
  return j.dump(2) + "\n";
}

Result<AgentConfig> read_agent_config(const std::string& text, const std::string& origin) {
  const auto fail = [&](const std::string& key, const std::string& why) {
    return Error{key.empty() ? fmt::format("{}: {}", origin, why) : fmt::format("{}: key '{}': {}", origin, key, why)};
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return fail("", fmt::format("not JSON (byte {})", e.byte));
  }
  if (!j.is_object()) return fail("", "not a JSON object");
  std::vector<std::string> known(kAgentConfigKeys.begin(), kAgentConfigKeys.end());
  for (const auto& [key, value] : j.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string guess = closest_match(key, known);
    return fail("", fmt::format("unknown key '{}'{}", key, guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess)));
  }
  for (const auto& key : known) {
    if (!j.contains(key)) return fail(key, "missing");
  }
  if (j["format"] != kAgentConfigFormat) return fail("format", fmt::format("must be \"{}\"", kAgentConfigFormat));
  if (j["format_version"] != kAgentConfigVersion) {
    return fail("format_version", fmt::format("this hpnctl reads version {}", kAgentConfigVersion));
  }
  AgentConfig a;
  if (!j["switch"].is_string() || j["switch"].get<std::string>().empty()) return fail("switch", "must be a name");
  a.switch_name = j["switch"].get<std::string>();

  if (!j["ports"].is_array()) return fail("ports", "must be a list of interface names");
  for (const auto& p : j["ports"]) {
    if (!p.is_string() || !valid_ifname(p.get<std::string>())) {
      return fail("ports", fmt::format("{} is not a Linux interface name (1 to 15 bytes, no '/', ':' or space)",
                                       p.dump()));
    }
    const std::string name = p.get<std::string>();
    if (std::find(a.ports.begin(), a.ports.end(), name) != a.ports.end()) {
      return fail("ports", fmt::format("'{}' is listed twice", name));
    }
    a.ports.push_back(name);
  }

  if (!j["prefixes"].is_array() || j["prefixes"].empty()) {
    return fail("prefixes", "must be a non-empty list: a host outside every prefix is refused");
  }
  for (const auto& p : j["prefixes"]) {
    if (!p.is_string()) return fail("prefixes", fmt::format("{} is not a prefix", p.dump()));
    auto prefix = parse_host_prefix(p.get<std::string>());
    if (!prefix) return fail("prefixes", prefix.error().message);
    a.prefixes.push_back(std::move(prefix.value()));
  }

  // 0 is no table; 253 (default) and 255 (local) belong to the kernel.
  const auto& table = j["table"];
  if (!table.is_number_integer() || table.get<std::int64_t>() < 1 || table.get<std::int64_t>() > 4294967295 ||
      table == 253 || table == 255) {
    return fail("table", fmt::format("{} is not a routing table (1 to 4294967295, not 253 or 255)", table.dump()));
  }
  a.table = static_cast<std::uint32_t>(table.get<std::int64_t>());
  // 0 to 4 are the kernel's own (unspec, redirect, kernel, boot, static):
  // the agent would take routes it does not own for its own.
  const auto& protocol = j["protocol"];
  if (!protocol.is_number_integer() || protocol.get<std::int64_t>() < 5 || protocol.get<std::int64_t>() > 255) {
    return fail("protocol", fmt::format("{} is not a routing protocol number the agent may own (5 to 255)",
                                        protocol.dump()));
  }
  a.protocol = protocol.get<int>();
  return a;
}

}  // namespace hpn::switchconfig
