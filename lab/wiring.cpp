#include "lab/wiring.h"

#include "blueprint/input_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "blueprint/csv.h"
#include "blueprint/diagnostics.h"
#include "planner/plan_output.h"

namespace hpn::lab {

namespace {

// The columns of cabling.csv plus `fault`. Only the ends and the fault are
// read; the others (racks, units, lengths, labels) are there to be carried.
std::vector<std::string> known_columns() {
  std::vector<std::string> known(kCablingColumns.begin(), kCablingColumns.end());
  known.push_back("fault");
  return known;
}
constexpr std::array kRequiredColumns = {"a_device", "a_port", "z_device", "z_port"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string guess = closest_match(word, candidates);
  return guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess);
}

// Checks one row against the blueprint and the ports already cabled, and
// collects its errors; a row with an error is left out of the wiring.
class RowChecker {
 public:
  explicit RowChecker(const Blueprint& bp) : bp_(bp) {
    for (size_t i = 0; i < bp.devices.size(); ++i) {
      index_.emplace(bp.devices[i].name, static_cast<int>(i));
      names_.push_back(bp.devices[i].name);
    }
  }

  // The device index, or -1 with `error` set.
  int device(std::string_view name, std::string& error) const {
    auto it = index_.find(std::string(name));
    if (it == index_.end()) {
      error = fmt::format("unknown device '{}'{}", name, did_you_mean(name, names_));
      return -1;
    }
    if (!in_lab(bp_.devices[it->second])) {
      error = fmt::format("device '{}' is a front-end device; the lab is the back-end fabric only", name);
      return -1;
    }
    return it->second;
  }

  bool port(int device, std::string_view port, std::string& error) const {
    const Device& d = bp_.devices[device];
    const Panel& panel = bp_.panels[d.panel];
    const int at = panel.find(port);
    if (at < 0) {
      std::vector<std::string> names;
      for (const auto& p : panel.ports) names.push_back(p.name);
      error = fmt::format("device '{}' has no port '{}'{}", d.name, port, did_you_mean(port, names));
      return false;
    }
    if (panel.ports[at].use == PortUse::cage) {
      std::vector<std::string> parts;
      for (const auto& p : panel.ports) {
        if (p.breakout_of == port) parts.push_back(p.name);
      }
      error = fmt::format("port '{}' of '{}' is broken out into {}; cable one of those", port, d.name,
                          fmt::join(parts, ", "));
      return false;
    }
    return true;
  }

  // Records the port as cabled on `line`; false if it already was.
  bool claim(int device, std::string_view port, int line, std::string& error) {
    auto [it, fresh] = cabled_.emplace(std::pair{device, std::string(port)}, line);
    if (fresh) return true;
    error = it->second == line
                ? fmt::format("both ends are {}:{}", bp_.devices[device].name, port)
                : fmt::format("{}:{} is already cabled on line {}", bp_.devices[device].name, port,
                              it->second);
    return false;
  }

 private:
  const Blueprint& bp_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> names_;
  std::map<std::pair<int, std::string>, int> cabled_;
};

}  // namespace

std::string Fault::to_string() const {
  const char* way = direction == Direction::a_to_z ? "a-z" : "z-a";
  switch (kind) {
    case FaultKind::none: return "";
    case FaultKind::down: return "down";
    case FaultKind::drop: return fmt::format("drop-{}", way);
    case FaultKind::loss: return fmt::format("loss-{}:{}", way, loss_percent);
    case FaultKind::ioam_off: return at_z ? "ioam-off-z" : "ioam-off-a";
    case FaultKind::icmp_off: return at_z ? "icmp-off-z" : "icmp-off-a";
  }
  return "";
}

bool parse_fault(std::string_view text, Fault& out) {
  out = Fault{};
  if (text.empty()) return true;
  if (text == "down") {
    out.kind = FaultKind::down;
    return true;
  }
  auto direction = [&](std::string_view rest) {
    if (rest == "a-z") return out.direction = Direction::a_to_z, true;
    if (rest == "z-a") return out.direction = Direction::z_to_a, true;
    return false;
  };
  if (text.starts_with("drop-")) {
    out.kind = FaultKind::drop;
    return direction(text.substr(5));
  }
  for (const auto& [prefix, kind] : {std::pair{"ioam-off-", FaultKind::ioam_off}, std::pair{"icmp-off-", FaultKind::icmp_off}}) {
    if (!text.starts_with(prefix)) continue;
    const auto end = text.substr(std::string_view(prefix).size());
    if (end != "a" && end != "z") return false;
    out.kind = kind;
    out.at_z = end == "z";
    return true;
  }
  if (text.starts_with("loss-")) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || !direction(text.substr(5, colon - 5))) return false;
    const auto number = text.substr(colon + 1);
    int n = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (ec != std::errc{} || end != number.data() + number.size() || n < 1 || n > 100) return false;
    out.kind = FaultKind::loss;
    out.loss_percent = n;
    return true;
  }
  return false;
}

bool in_lab(const Device& device) { return device.role != Role::frontend; }

Wiring planned_wiring(const Blueprint& bp) {
  Wiring w;
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::frontend) continue;
    if (!in_lab(bp.devices[c.a_device]) || !in_lab(bp.devices[c.z_device])) continue;
    w.cables.push_back({c.id, 0, c.a_device, c.a_port, c.z_device, c.z_port, {}});
  }
  return w;
}

Result<Wiring> parse_wiring(std::string_view text, std::string_view source, const Blueprint& bp) {
  Wiring wiring;
  wiring.source = std::string(source);
  std::vector<std::string> errors;
  auto fail = [&](int line, const std::string& message) {
    errors.push_back(fmt::format("{}:{}: {}", source, line, message));
  };

  std::map<std::string, size_t> column;  // header name -> field position
  bool have_header = false;
  size_t header_size = 0;
  RowChecker check(bp);
  std::vector<std::string> fields;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    if (!parse_csv_line(line, fields)) {
      fail(line_no, "unterminated quoted field");
      if (!have_header) break;
      continue;
    }
    if (!have_header) {
      have_header = true;
      header_size = fields.size();
      const std::vector<std::string> known = known_columns();
      for (size_t i = 0; i < fields.size(); ++i) {
        const std::string name(trim(fields[i]));
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          fail(line_no, fmt::format("unknown column '{}'{}", name, did_you_mean(name, known)));
        } else if (!column.emplace(name, i).second) {
          fail(line_no, fmt::format("column '{}' appears twice", name));
        }
      }
      for (const char* required : kRequiredColumns) {
        if (!column.count(required)) fail(line_no, fmt::format("missing column '{}'", required));
      }
      if (!errors.empty()) break;  // rows cannot be read without their columns
      continue;
    }
    if (fields.size() != header_size) {
      fail(line_no, fmt::format("{} fields, but the header has {}", fields.size(), header_size));
      continue;
    }
    auto field = [&](const char* name) -> std::string {
      auto it = column.find(name);
      return it == column.end() ? std::string() : std::string(trim(fields[it->second]));
    };
    WiredCable c;
    c.cable_id = field("cable_id");
    c.line = line_no;
    c.a_port = field("a_port");
    c.z_port = field("z_port");
    std::string error;
    bool ok = true;
    auto end_ok = [&](const char* end, const std::string& device, const std::string& port, int& out) {
      if (device.empty() || port.empty()) {
        fail(line_no, fmt::format("empty {}_device or {}_port", end, end));
        return false;
      }
      out = check.device(device, error);
      if (out < 0 || !check.port(out, port, error)) {
        fail(line_no, error);
        return false;
      }
      return true;
    };
    ok = end_ok("a", field("a_device"), c.a_port, c.a_device) && ok;
    ok = end_ok("z", field("z_device"), c.z_port, c.z_device) && ok;
    const std::string fault = field("fault");
    if (!parse_fault(fault, c.fault)) {
      fail(line_no, fmt::format("fault '{}': expected down, drop-a-z, drop-z-a, loss-a-z:N, loss-z-a:N (N in "
                                "1..100), ioam-off-a, ioam-off-z, icmp-off-a or icmp-off-z", fault));
      ok = false;
    }
    if (!ok) continue;
    if (c.fault.kind == FaultKind::ioam_off || c.fault.kind == FaultKind::icmp_off) {
      const Device& at = bp.devices[c.fault.at_z ? c.z_device : c.a_device];
      if (at.role == Role::host) {
        fail(line_no, fmt::format("fault '{}': {} is a host; IOAM and ICMPv6 faults are a switch port's", fault,
                                  at.name));
        continue;
      }
    }
    if (!check.claim(c.a_device, c.a_port, line_no, error) ||
        !check.claim(c.z_device, c.z_port, line_no, error)) {
      fail(line_no, error);
      continue;
    }
    wiring.cables.push_back(std::move(c));
  }
  if (!have_header && errors.empty()) fail(1, "empty file; expected a header line of cabling.csv's columns");
  if (!errors.empty()) return Error{fmt::format("{}", fmt::join(errors, "\n"))};
  return wiring;
}

Result<Wiring> read_wiring_file(const std::string& path, const Blueprint& bp) {
  // A wiring file lists each cable once: far under 64 MiB for any fabric.
  auto text = read_input_file(path, "a wiring file", std::size_t{64} << 20);
  if (!text) return text.error();
  return parse_wiring(text.value(), path, bp);
}

}  // namespace hpn::lab
