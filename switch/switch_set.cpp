#include "switch/switch_set.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blueprint/diagnostics.h"
#include "blueprint/input_file.h"
#include "blueprint/mac.h"
#include "switchconfig/agent_config.h"

namespace hpn::sw {

namespace fs = std::filesystem;

bool parse_if_prefix(std::string_view text, IfPrefix& out) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || slash + 1 == text.size() || text.size() - slash > 4) return false;
  int length = 0;
  for (char c : text.substr(slash + 1)) {
    if (c < '0' || c > '9') return false;
    length = length * 10 + (c - '0');
  }
  const std::string address(text.substr(0, slash));
  unsigned char bytes[16];
  const int family = address.find(':') == std::string::npos ? 4 : 6;
  const int af = family == 4 ? AF_INET : AF_INET6;
  if (inet_pton(af, address.c_str(), bytes) != 1 || length > (family == 4 ? 32 : 128)) return false;
  char canonical[INET6_ADDRSTRLEN] = "";
  inet_ntop(af, bytes, canonical, sizeof canonical);
  out = IfPrefix{family, canonical, length};
  return true;
}

const SetPort* SwitchSet::port(const std::string& ifname) const {
  for (const auto& p : ports) {
    if (p.ifname == ifname) return &p;
  }
  return nullptr;
}

namespace {

// One key of an INI-style networkd file, where it sat.
struct Entry {
  std::string section, key, value;
  int line = 0;
  int value_column = 0;
};

class Parser {
 public:
  explicit Parser(const SetFile& f) : file_(f) {}

  Error error(int line, int column, const std::string& message) const {
    return Error{format_diagnostic(file_.name, file_.text, {line, column}, message)};
  }

  // systemd.syntax(7) as the writers use it: [Section], Key=Value,
  // comments with # or ;. `allowed` maps each section to its keys.
  Result<std::vector<Entry>> entries(const std::map<std::string, std::vector<std::string>>& allowed) const {
    std::vector<Entry> out;
    std::string section;
    for (const auto& [number, line] : lines("#;")) {
      if (line[0] == '[') {
        if (line.back() != ']') return error(number, static_cast<int>(line.size()), "expected ']' at the end of a section");
        section = line.substr(1, line.size() - 2);
        if (!allowed.count(section)) {
          std::vector<std::string> names;
          for (const auto& [s, keys] : allowed) names.push_back(s);
          const std::string near = closest_match(section, names);
          return error(number, 2, fmt::format("unknown section [{}]{}", section,
                                              near.empty() ? "" : fmt::format("; did you mean [{}]?", near)));
        }
        continue;
      }
      const auto eq = line.find('=');
      if (eq == std::string::npos) return error(number, 1, "expected Key=Value");
      if (section.empty()) return error(number, 1, "a key before any [Section]");
      const std::string key = line.substr(0, eq);
      const auto& keys = allowed.at(section);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        const std::string near = closest_match(key, keys);
        return error(number, 1, fmt::format("unknown key '{}' in [{}]{}", key, section,
                                            near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
      }
      out.push_back({section, key, line.substr(eq + 1), number, static_cast<int>(eq) + 2});
    }
    return out;
  }

  const SetFile& file() const { return file_; }

  // The file's lines that say something, each with its number from 1:
  // empty lines and those that start with one of `comments` left out.
  std::vector<std::pair<int, std::string>> lines(std::string_view comments) const {
    std::vector<std::pair<int, std::string>> out;
    int number = 0;
    for (size_t start = 0; start < file_.text.size();) {
      size_t end = file_.text.find('\n', start);
      if (end == std::string::npos) end = file_.text.size();
      std::string line = file_.text.substr(start, end - start);
      start = end + 1;
      ++number;
      if (!line.empty() && comments.find(line[0]) == std::string_view::npos) out.emplace_back(number, std::move(line));
    }
    return out;
  }

 private:
  const SetFile& file_;
};

bool is_ifname(const std::string& s) {
  return !s.empty() && s.size() < 16 && s != "." && s != ".." &&
         std::none_of(s.begin(), s.end(), [](char c) { return c == '/' || c == ' ' || c == ':' || c < 33 || c > 126; });
}

// [Match] Name=/OriginalName=: interface names, space-separated.
Result<std::vector<std::string>> name_list(const Parser& p, const Entry& e) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < e.value.size()) {
    size_t end = e.value.find(' ', at);
    if (end == std::string::npos) end = e.value.size();
    const std::string name = e.value.substr(at, end - at);
    if (!is_ifname(name)) {
      return p.error(e.line, e.value_column + static_cast<int>(at), fmt::format("'{}' is not an interface name", name));
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      return p.error(e.line, e.value_column + static_cast<int>(at), fmt::format("{} named twice", name));
    }
    out.push_back(name);
    at = end + 1;
  }
  if (out.empty()) return p.error(e.line, e.value_column, fmt::format("{}= names no interface", e.key));
  return out;
}

// Host= once per file, the same in every file.
Status take_host(const Parser& p, const Entry& e, std::string& host, std::string& set_host, std::string& set_host_file) {
  if (!host.empty()) return p.error(e.line, 1, "Host= given twice");
  if (e.value.empty()) return p.error(e.line, e.value_column, "Host= is empty");
  host = e.value;
  if (set_host.empty()) {
    set_host = host;
    set_host_file = p.file().name;
  } else if (host != set_host) {
    return p.error(e.line, e.value_column,
                   fmt::format("Host={}, and {} says Host={}: one switch's set only", host, set_host_file, set_host));
  }
  return {};
}

}  // namespace

Result<SwitchSet> parse_switch_set(const std::vector<SetFile>& networkd, const SetFile& sysctl_conf) {
  SwitchSet set;
  std::string set_host_file;
  std::map<std::string, std::pair<std::string, std::string>> macs;  // ifname -> (MAC, .link file)
  std::vector<SetPort> ports;
  std::optional<SetPort> loopback;
  std::vector<const SetFile*> files;
  for (const auto& f : networkd) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const SetFile* a, const SetFile* b) { return a->name < b->name; });
  for (const SetFile* f : files) {
    Parser p(*f);
    std::string host;
    if (f->name.ends_with(".link")) {
      auto entries = p.entries({{"Match", {"Host", "OriginalName"}}, {"Link", {"MACAddress"}}});
      if (!entries) return entries.error();
      std::vector<std::string> names;
      std::string mac;
      for (const auto& e : *entries) {
        if (e.key == "Host") {
          if (auto st = take_host(p, e, host, set.name, set_host_file); !st) return st.error();
        } else if (e.key == "OriginalName") {
          auto list = name_list(p, e);
          if (!list) return list.error();
          names = std::move(list.value());
        } else {
          Mac m;
          if (!parse_mac(e.value, m)) return p.error(e.line, e.value_column, fmt::format("'{}' is not a MAC address", e.value));
          mac = hpn::to_string(m);
        }
      }
      if (host.empty()) return p.error(0, 0, "no [Match] Host=: every file names its switch");
      if (names.empty()) return p.error(0, 0, "no [Match] OriginalName=");
      if (mac.empty()) return p.error(0, 0, "no [Link] MACAddress=");
      for (const auto& n : names) {
        if (macs.count(n)) return p.error(0, 0, fmt::format("{} has a .link already: {}", n, macs[n].second));
        macs[n] = {mac, f->name};
      }
      continue;
    }
    if (!f->name.ends_with(".network")) return Error{fmt::format("{}: neither a .link nor a .network file", f->name)};
    auto entries = p.entries({{"Match", {"Host", "Name"}},
                              {"Link", {"MTUBytes", "ActivationPolicy"}},
                              {"Network", {"LinkLocalAddressing", "IPv6AcceptRA", "Address"}}});
    if (!entries) return entries.error();
    SetPort port;
    std::vector<std::string> names;
    for (const auto& e : *entries) {
      if (e.key == "Host") {
        if (auto st = take_host(p, e, host, set.name, set_host_file); !st) return st.error();
      } else if (e.key == "Name") {
        auto list = name_list(p, e);
        if (!list) return list.error();
        names = std::move(list.value());
      } else if (e.key == "MTUBytes") {
        const bool digits = !e.value.empty() && e.value.size() <= 5 &&
                            std::all_of(e.value.begin(), e.value.end(), [](char c) { return c >= '0' && c <= '9'; });
        port.mtu = digits ? std::stoi(e.value) : 0;
        if (port.mtu < 1280 || port.mtu > 65535) {
          return p.error(e.line, e.value_column, fmt::format("MTUBytes={} is not an MTU of 1280 to 65535 bytes", e.value));
        }
      } else if (e.key == "ActivationPolicy") {
        if (e.value != "up" && e.value != "down") {
          return p.error(e.line, e.value_column, fmt::format("ActivationPolicy={}: up or down", e.value));
        }
        port.up = e.value == "up";
      } else if (e.key == "LinkLocalAddressing") {
        if (e.value != "ipv6") return p.error(e.line, e.value_column, "LinkLocalAddressing= must be ipv6 (BGP unnumbered)");
      } else if (e.key == "IPv6AcceptRA") {
        if (e.value != "no") return p.error(e.line, e.value_column, "IPv6AcceptRA= must be no");
      } else {
        IfPrefix a;
        if (!parse_if_prefix(e.value, a)) {
          return p.error(e.line, e.value_column, fmt::format("'{}' is not an address with its prefix length", e.value));
        }
        if (std::find(port.addresses.begin(), port.addresses.end(), a) != port.addresses.end()) {
          return p.error(e.line, e.value_column, fmt::format("Address={} given twice", e.value));
        }
        port.addresses.push_back(a);
      }
    }
    if (host.empty()) return p.error(0, 0, "no [Match] Host=: every file names its switch");
    if (names.empty()) return p.error(0, 0, "no [Match] Name=");
    if (names == std::vector<std::string>{"lo"}) {
      if (port.mtu != 0) return p.error(0, 0, "the loopback's MTU is the kernel's");
      if (loopback) return p.error(0, 0, "a second .network for lo");
      port.ifname = "lo";
      loopback = port;
      continue;
    }
    if (port.mtu == 0) return p.error(0, 0, "no [Link] MTUBytes=");
    for (const auto& n : names) {
      if (n == "lo") return p.error(0, 0, "lo has a .network of its own");
      if (std::any_of(ports.begin(), ports.end(), [&](const SetPort& q) { return q.ifname == n; })) {
        return p.error(0, 0, fmt::format("a second .network for {}", n));
      }
      port.ifname = n;
      ports.push_back(port);
    }
  }
  for (const auto& entry : macs) {
    // Not a structured binding: clang 14 (the sanitized build's) cannot
    // capture one in a lambda.
    const std::string& ifname = entry.first;
    const auto& mac = entry.second;
    auto it = std::find_if(ports.begin(), ports.end(), [&](const SetPort& q) { return q.ifname == ifname; });
    if (it == ports.end()) return Error{fmt::format("{}: no .network for {}", mac.second, ifname)};
    it->mac = mac.first;
  }
  if (!loopback) return Error{"the set has no .network for lo (its loopback addresses)"};
  set.ports.push_back(std::move(*loopback));
  for (auto& p : ports) set.ports.push_back(std::move(p));

  // sysctl.d(5): "key = value", "-key = value" (ignored where the key does
  // not exist), comments with # or ;.
  Parser p(sysctl_conf);
  bool node = false;
  for (const auto& [number, line] : p.lines("#;")) {
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) return p.error(number, 1, "expected 'key = value'");
    SetSysctl s;
    s.optional = line[0] == '-';
    s.key = line.substr(s.optional ? 1 : 0, eq - (s.optional ? 1 : 0));
    s.value = line.substr(eq + 3);
    const bool key_ok = s.key.starts_with("net.") && s.key.find("..") == std::string::npos && s.key.back() != '.' &&
                        std::all_of(s.key.begin(), s.key.end(), [](char c) {
                          return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
                        });
    if (!key_ok) return p.error(number, s.optional ? 2 : 1, fmt::format("'{}' is not a net. sysctl key", s.key));
    const bool value_ok = !s.value.empty() && std::all_of(s.value.begin(), s.value.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0;
    });
    if (!value_ok) return p.error(number, static_cast<int>(eq) + 4, fmt::format("'{}' is not a value", s.value));
    if (std::any_of(set.sysctls.begin(), set.sysctls.end(), [&](const SetSysctl& o) { return o.key == s.key; })) {
      return p.error(number, 1, fmt::format("{} set twice", s.key));
    }
    if (s.key == "net.ipv6.ioam6_id") {
      char* rest = nullptr;
      const unsigned long id = std::strtoul(s.value.c_str(), &rest, 10);
      if (*rest != '\0' || id == 0 || id > 0xffffff) {
        return p.error(number, static_cast<int>(eq) + 4, fmt::format("'{}' is not an IOAM node ID (1 to 16777215)", s.value));
      }
      set.node_id = static_cast<std::uint32_t>(id);
      node = true;
    }
    set.sysctls.push_back(std::move(s));
  }
  if (!node) return Error{fmt::format("{}: no net.ipv6.ioam6_id: the switch's node ID", sysctl_conf.name)};
  return set;
}

Result<std::vector<std::uint16_t>> parse_ioam_conf(const SetFile& f) {
  Parser p(f);
  std::vector<std::uint16_t> ids;
  for (const auto& [number, line] : p.lines("#")) {
    constexpr std::string_view kKey = "namespace ";
    if (!line.starts_with(kKey)) return p.error(number, 1, "expected 'namespace N'");
    const std::string value = line.substr(kKey.size());
    char* rest = nullptr;
    const unsigned long id = std::strtoul(value.c_str(), &rest, 10);
    if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0])) || *rest != '\0' || id > 0xffff) {
      return p.error(number, static_cast<int>(kKey.size()) + 1,
                     fmt::format("'{}' is not an IOAM namespace ID (0 to 65535)", value));
    }
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      return p.error(number, static_cast<int>(kKey.size()) + 1, fmt::format("namespace {} given twice", id));
    }
    ids.push_back(static_cast<std::uint16_t>(id));
  }
  return ids;
}

Result<int> agent_protocol(const std::string& dir) {
  const std::string path = (fs::path(dir) / switchconfig::kAgentConfigFile).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return 0;
  auto text = read_input_file(path, "an agent configuration", 1 << 20);
  if (!text) return text.error();
  auto config = switchconfig::read_agent_config(text.value(), path);
  if (!config) return config.error();
  return config->protocol;
}

Result<SwitchSet> read_switch_set(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Error{fmt::format("{}: not a directory (a switch's set from hpnctl config --all)", dir)};
  const fs::path nd = root / "networkd";
  if (!fs::is_directory(nd, ec)) return Error{fmt::format("{}: no networkd/ directory: not a switch's set", dir)};
  std::vector<SetFile> files;
  for (const auto& entry : fs::directory_iterator(nd, ec)) {
    auto text = read_input_file(entry.path().string(), "a networkd file", 1 << 20);
    if (!text) return text.error();
    files.push_back({entry.path().string(), std::move(text.value())});
  }
  if (ec) return Error{fmt::format("{}: {}", nd.string(), ec.message())};
  const std::string sysctl_path = (root / "sysctl.conf").string();
  auto sysctl = read_input_file(sysctl_path, "a sysctl.d file", 1 << 20);
  if (!sysctl) return sysctl.error();
  auto set = parse_switch_set(files, {sysctl_path, std::move(sysctl.value())});
  if (!set) return set;
  const std::string ioam_path = (root / "ioam.conf").string();
  if (fs::exists(ioam_path, ec)) {
    auto text = read_input_file(ioam_path, "an ioam.conf", 1 << 16);
    if (!text) return text.error();
    auto ids = parse_ioam_conf({ioam_path, std::move(text.value())});
    if (!ids) return ids.error();
    set->ioam_namespaces = std::move(ids.value());
  }
  return set;
}

}  // namespace hpn::sw
