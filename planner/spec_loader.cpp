#include "planner/spec_loader.h"

#include "blueprint/input_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "blueprint/diagnostics.h"
#include "planner/plant.h"
#include "planner/yaml_lines.h"

namespace hpn {

namespace embedded {
extern const std::string_view default_spec_yaml;
}

std::string_view default_spec_text() { return embedded::default_spec_yaml; }

namespace {

constexpr int kMaxErrors = 20;

SourceLocation location_of(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

const char* kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "nothing";
    default: return "an undefined value";
  }
}

struct BadCharacter {
  std::string what;  // "invalid UTF-8 byte 0xff", "control character U+0007"
  size_t position;   // in characters from the start
};

// The length of the UTF-8 sequence at text[i], its code point in `cp`; 0
// when it is not valid UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF).
size_t utf8_at(std::string_view text, size_t i, uint32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = byte(0);
  const size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                     : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || i + len > text.size()) return 0;
  cp = len == 1 ? c : c & (0xFF >> (len + 1));
  for (size_t k = 1; k < len; ++k) {
    if ((byte(k) >> 6) != 0x2) return 0;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kLeast[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// The first character of `text` that is not valid UTF-8 or is a control
// character (C0, DEL, C1).
std::optional<BadCharacter> unprintable(std::string_view text) {
  size_t position = 0;
  for (size_t i = 0; i < text.size(); ++position) {
    uint32_t cp = 0;
    const size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      return BadCharacter{fmt::format("invalid UTF-8 byte 0x{:02x}", static_cast<unsigned char>(text[i])), position};
    }
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
      return BadCharacter{fmt::format("control character U+{:04X}", cp), position};
    }
    i += len;
  }
  return std::nullopt;
}

// `text` for an error message: unprintable characters as \xNN escapes.
std::string printable(std::string_view text) {
  if (!unprintable(text)) return std::string(text);
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

// yaml-cpp keeps an alias as a second reference to its anchor's node, so a
// "billion laughs" document (each anchor a list of aliases of the one
// before) is small in memory, but walking it visits every expansion. The
// walk the loader makes is bounded first: at most this many nodes, counted
// as the loader would see them, aliases expanded.
constexpr int64_t kMaxSpecNodes = 100'000;

// Counts the nodes under `node` into `count`, stopping past the limit.
// yaml-cpp refuses nesting past 500 levels while parsing, so the recursion
// is bounded too.
void count_nodes(const YAML::Node& node, int64_t& count) {
  if (++count > kMaxSpecNodes) return;
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end() && count <= kMaxSpecNodes; ++it) {
      count_nodes(it->first, count);
      count_nodes(it->second, count);
    }
  } else if (node.IsSequence()) {
    for (auto it = node.begin(); it != node.end() && count <= kMaxSpecNodes; ++it) count_nodes(*it, count);
  }
}

// Collects located errors while the reader walks the document.
class Loader {
 public:
  Loader(std::string_view text, std::string name, Spec& spec)
      : text_(text), name_(std::move(name)), spec_(spec) {}

  void error(SourceLocation where, const std::string& message) {
    if (errors_ < kMaxErrors) out_ += format_diagnostic(name_, text_, where, message);
    ++errors_;
  }
  bool failed() const { return errors_ > 0; }
  // Past kMaxErrors errors are only counted: callers may skip composing them.
  bool full() const { return errors_ >= kMaxErrors; }
  void count_error() { ++errors_; }
  std::string report() const {
    if (errors_ <= kMaxErrors) return out_;
    return out_ + fmt::format("{}: {} more errors not shown\n", name_, errors_ - kMaxErrors);
  }
  void remember(const std::string& path, SourceLocation where) { spec_.locations[path] = where; }

 private:
  std::string_view text_;
  std::string name_;
  Spec& spec_;
  std::string out_;
  int errors_ = 0;
};

// One mapping of the spec. Each accessor names a key this section allows; the
// destructor reports every key in the file that no accessor asked for.
class Section {
 public:
  Section(Loader& loader, const YAML::Node& node, std::string path)
      : loader_(loader), path_(std::move(path)) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar()) {
        loader_.error(location_of(key), fmt::format("{}: keys must be plain words", where_name()));
        continue;
      }
      const std::string& k = key.Scalar();
      // By name, not by scanning: a hostile mapping may have 10^5 keys.
      auto [first, fresh] = first_of_.emplace(k, entries_.size());
      if (!fresh) {
        loader_.error(location_of(key), fmt::format("duplicate key '{}' (first at line {})", printable(k),
                                                    location_of(entries_[first->second].key_node).line));
      }
      entries_.push_back({k, key, it->second});
    }
  }
  Section(const Section&) = delete;
  Section& operator=(const Section&) = delete;

  ~Section() {
    for (const auto& e : entries_) {
      if (allowed_.count(e.key)) continue;
      if (loader_.full()) {  // not shown: no suggestion to look for
        loader_.count_error();
        continue;
      }
      std::vector<std::string> candidates(allowed_.begin(), allowed_.end());
      std::string suggestion = closest_match(e.key, candidates);
      // The key as written; the caret under the line shows where it sits.
      std::string message = fmt::format("unknown key '{}'", printable(e.key));
      if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
      loader_.error(location_of(e.key_node), message);
    }
  }

  void integer(const char* key, int& out, int64_t min, int64_t max) {
    int64_t wide = out;
    integer64(key, wide, min, max);
    out = static_cast<int>(wide);
  }

  void integer64(const char* key, int64_t& out, int64_t min, int64_t max) {
    const YAML::Node* v = scalar(key, "an integer");
    if (!v) return;
    const std::string& s = v->Scalar();
    errno = 0;
    char* end = nullptr;
    bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    long long value = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
    if (s.empty() || v->Tag() == "!" || *end != '\0' || s[0] == '+' ||
        std::isspace(static_cast<unsigned char>(s[0]))) {
      type_error(key, *v, "an integer");
      return;
    }
    // Past 64 bits (errno ERANGE) is out of range like any other big number.
    if (errno == ERANGE || value < min || value > max) {
      loader_.error(location_of(*v), fmt::format("{}: {} is out of range; must be between {} and {}",
                                                 qualified(key), s, min, max));
      return;
    }
    out = value;
  }

  void number(const char* key, double& out, double min, double max) {
    const YAML::Node* v = scalar(key, "a number");
    if (!v) return;
    if (auto d = parse_number(*v)) {
      if (*d < min || *d > max) {
        loader_.error(location_of(*v), fmt::format("{}: {} is out of range; must be between {} and {}",
                                                   qualified(key), v->Scalar(), min, max));
        return;
      }
      out = *d;
    } else {
      type_error(key, *v, "a number");
    }
  }

  void boolean(const char* key, bool& out) {
    const YAML::Node* v = scalar(key, "true or false");
    if (!v) return;
    if (v->Tag() != "!" && (v->Scalar() == "true" || v->Scalar() == "false")) {
      out = v->Scalar() == "true";
    } else {
      type_error(key, *v, "true or false");
    }
  }

  void text(const char* key, std::string& out) {
    const YAML::Node* v = scalar(key, "a string");
    if (!v) return;
    if (v->Scalar().empty()) {
      loader_.error(location_of(*v), fmt::format("{}: must not be empty", qualified(key)));
      return;
    }
    // The raw bytes were checked before parsing, but escapes ("\0", "\x9b",
    // "\u0007") make other characters: names end up in labels, databases,
    // file names and terminals, so they must be printable UTF-8.
    if (auto bad = unprintable(v->Scalar())) {
      loader_.error(location_of(*v), fmt::format("{}: {} at character {}; text must be printable UTF-8",
                                                 qualified(key), bad->what, bad->position + 1));
      return;
    }
    out = v->Scalar();
  }

  // An Ethernet port speed in Gb/s.
  void speed(const char* key, int& out) {
    static const std::set<int64_t> kSpeeds{10, 25, 40, 50, 100, 200, 400, 800, 1600};
    int64_t value = out;
    const YAML::Node* v = find(key);
    if (!v) return;
    integer64(key, value, 1, 1600);
    if (value != out && !kSpeeds.count(value)) {
      loader_.error(location_of(*v), fmt::format("{}: {} Gb/s is not an Ethernet port speed",
                                                 qualified(key), value));
      return;
    }
    out = static_cast<int>(value);
  }

  // A nested mapping; `fn(Section&)` reads its keys.
  void section(const char* key, const std::function<void(Section&)>& fn) {
    const YAML::Node* v = find(key);
    if (!v) return;
    if (!v->IsMap()) {
      loader_.error(location_of(*v), fmt::format("{}: expected a mapping, got {}", qualified(key),
                                                 kind_of(*v)));
      return;
    }
    Section inner(loader_, *v, qualified(key));
    fn(inner);
  }

  // A list; `fn(item, path)` reads one element. Returns false if absent.
  bool list(const char* key, const std::function<void(const YAML::Node&, const std::string&)>& fn) {
    const YAML::Node* v = find(key);
    if (!v) return false;
    if (!v->IsSequence()) {
      loader_.error(location_of(*v), fmt::format("{}: expected a list, got {}", qualified(key),
                                                 kind_of(*v)));
      return false;
    }
    for (size_t i = 0; i < v->size(); ++i) fn((*v)[i], fmt::format("{}[{}]", qualified(key), i));
    return true;
  }

  // Is the key present (accessor already called or not)?
  bool has(const char* key) const {
    for (const auto& e : entries_) if (e.key == key) return true;
    return false;
  }

  Loader& loader() { return loader_; }
  std::string qualified(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  static std::optional<double> parse_number(const YAML::Node& v) {
    if (!v.IsScalar() || v.Tag() == "!") return std::nullopt;
    const std::string& s = v.Scalar();
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(d) ||
        std::isspace(static_cast<unsigned char>(s[0]))) {
      return std::nullopt;
    }
    return d;
  }

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };

  std::string where_name() const { return path_.empty() ? "spec" : path_; }

  const YAML::Node* find(const char* key) {
    allowed_.insert(key);
    for (auto& e : entries_) {
      if (e.key == key) {
        loader_.remember(qualified(key), location_of(e.key_node));
        return &e.value;
      }
    }
    return nullptr;
  }

  const YAML::Node* scalar(const char* key, const char* expected) {
    const YAML::Node* v = find(key);
    if (!v) return nullptr;
    if (!v->IsScalar()) {
      loader_.error(location_of(*v), fmt::format("{}: expected {}, got {}", qualified(key), expected,
                                                 kind_of(*v)));
      return nullptr;
    }
    return v;
  }

  void type_error(const char* key, const YAML::Node& v, const char* expected) {
    loader_.error(location_of(v),
                  fmt::format("{}: expected {}, got '{}'", qualified(key), expected, v.Scalar()));
  }

  Loader& loader_;
  std::string path_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> first_of_;
  std::set<std::string> allowed_;
};

constexpr int64_t kMaxNodeId = 0xFFFFFE;  // 0xFFFFFF is "unavailable" (RFC 9197 §4.4)
constexpr int64_t kMaxAsn = 4294967294;
const std::set<std::string> kMedia{"dac", "aoc", "mmf", "smf"};

void read_ranges(Section& s, IdRange& r) {
  s.integer64("first", r.first, 0, kMaxNodeId);
  s.integer64("last", r.last, 0, kMaxNodeId);
}

void read_document(Section& top, Spec& spec, bool require_version) {
  if (require_version && !top.has("version")) {
    top.loader().error({1, 1}, "missing key 'version' (this hpnctl reads pod specs of version 1)");
  }
  top.integer("version", spec.version, 1, 1);
  top.text("name", spec.name);
  top.section("host", [&](Section& s) {
    s.integer("gpus", spec.host.gpus, 1, 64);
    s.integer("backend_nics", spec.host.backend_nics, 1, 15);
    s.integer("ports_per_nic", spec.host.ports_per_nic, 1, 15);
    s.speed("port_speed_gbps", spec.host.port_speed_gbps);
    s.boolean("frontend_nic", spec.host.frontend_nic);
  });
  top.section("segment", [&](Section& s) {
    s.integer("active_hosts", spec.segment.active_hosts, 1, 4096);
    s.integer("backup_hosts", spec.segment.backup_hosts, 0, 4096);
    s.boolean("dual_tor", spec.segment.dual_tor);
    s.integer("tors", spec.segment.tors, 1, 1024);
  });
  top.section("tor", [&](Section& s) {
    s.integer("radix", spec.tor.radix, 1, 4095);
    s.speed("port_speed_gbps", spec.tor.port_speed_gbps);
    s.integer("breakout", spec.tor.breakout, 1, 8);
    s.integer("uplinks", spec.tor.uplinks, 1, 4095);
  });
  top.section("pod", [&](Section& s) {
    s.integer("segments", spec.pod.segments, 1, 1024);
    s.integer("planes", spec.pod.planes, 1, 2);
  });
  top.section("aggregation", [&](Section& s) {
    s.integer("switches_per_plane", spec.aggregation.switches_per_plane, 1, 4095);
    s.integer("radix", spec.aggregation.radix, 1, 4095);
    s.speed("port_speed_gbps", spec.aggregation.port_speed_gbps);
    s.integer("downlinks", spec.aggregation.downlinks, 1, 4095);
    s.integer("uplinks", spec.aggregation.uplinks, 1, 4095);
  });
  top.section("core", [&](Section& s) {
    s.integer("radix", spec.core.radix, 1, 4095);
    s.speed("port_speed_gbps", spec.core.port_speed_gbps);
    s.integer("pods_planned", spec.core.pods_planned, 1, 1024);
  });
  top.section("fabric", [&](Section& s) { s.integer("pods", spec.pods, 1, 1024); });
  top.section("frontend", [&](Section& s) {
    s.boolean("enabled", spec.frontend.enabled);
    s.integer("hosts_per_leaf_pair", spec.frontend.hosts_per_leaf_pair, 1, 4096);
    s.integer("radix", spec.frontend.radix, 1, 4095);
    s.speed("port_speed_gbps", spec.frontend.port_speed_gbps);
    s.integer("breakout", spec.frontend.breakout, 1, 8);
    s.integer("uplinks", spec.frontend.uplinks, 0, 4095);
  });
  top.section("addressing", [&](Section& s) {
    auto& a = spec.addressing;
    s.text("backend_ipv4", a.backend_ipv4);
    s.text("backend_ipv6", a.backend_ipv6);
    s.text("frontend_ipv4", a.frontend_ipv4);
    s.text("frontend_ipv6", a.frontend_ipv6);
    s.text("loopback_ipv4", a.loopback_ipv4);
    s.text("loopback_ipv6", a.loopback_ipv6);
    s.text("link_ipv4", a.link_ipv4);
    s.text("link_ipv6", a.link_ipv6);
    s.integer("first_host_offset", a.first_host_offset, 3, 1 << 20);
    s.text("gateway_mac", a.gateway_mac);
  });
  top.section("asn", [&](Section& s) {
    s.integer64("core", spec.asn.core, 1, kMaxAsn);
    s.integer64("agg_first", spec.asn.agg_first, 1, kMaxAsn);
    s.integer64("tor_first", spec.asn.tor_first, 1, kMaxAsn);
    s.integer64("frontend_first", spec.asn.frontend_first, 1, kMaxAsn);
    s.integer64("last", spec.asn.last, 1, kMaxAsn);
  });
  top.section("node_ids", [&](Section& s) {
    s.section("core", [&](Section& r) { read_ranges(r, spec.node_ids.core); });
    s.section("agg", [&](Section& r) { read_ranges(r, spec.node_ids.agg); });
    s.section("tor", [&](Section& r) { read_ranges(r, spec.node_ids.tor); });
    s.section("frontend", [&](Section& r) { read_ranges(r, spec.node_ids.frontend); });
    s.section("host", [&](Section& r) { read_ranges(r, spec.node_ids.host); });
  });
  top.section("naming", [&](Section& s) {
    auto& n = spec.naming;
    s.text("host", n.host);
    s.text("tor", n.tor);
    s.text("agg", n.agg);
    s.text("core", n.core);
    s.text("frontend", n.frontend);
    s.text("host_port", n.host_port);
    s.text("switch_port", n.switch_port);
    s.text("cable", n.cable);
    s.text("rack", n.rack);
  });
  top.section("layout", [&](Section& s) {
    auto& l = spec.layout;
    s.integer("pods_per_hall", l.pods_per_hall, 1, 1024);
    s.number("hall_spacing_m", l.hall_spacing_m, 0, 100000);
    s.integer("core_hall", l.core_hall, 0, 1023);
    s.integer("racks_per_row", l.racks_per_row, 1, 1000);
    s.number("row_pitch_m", l.row_pitch_m, 0.1, 100);
    s.number("rack_width_m", l.rack_width_m, 0.1, 10);
    s.integer("rack_units", l.rack_units, 1, 100);
    s.integer("hosts_per_rack", l.hosts_per_rack, 1, 100);
    s.integer("host_units", l.host_units, 1, 100);
    s.integer("switch_units", l.switch_units, 1, 100);
    s.integer("aggs_per_rack", l.aggs_per_rack, 1, 100);
    s.integer("cores_per_rack", l.cores_per_rack, 1, 100);
  });
  top.section("media", [&](Section& s) {
    auto& m = spec.media;
    s.number("slack_m", m.slack_m, 0, 1000);
    s.number("same_rack_slack_m", m.same_rack_slack_m, 0, 1000);
    s.number("vertical_m_per_ru", m.vertical_m_per_ru, 0, 1);
    s.number("multimode_limit_m", m.multimode_limit_m, 1, 100000);
    std::vector<MediaRule> rules;
    if (s.list("rules", [&](const YAML::Node& item, const std::string& path) {
          if (!item.IsMap()) {
            s.loader().error(location_of(item),
                             fmt::format("{}: expected a mapping, got {}", path, kind_of(item)));
            return;
          }
          Section r(s.loader(), item, path);
          MediaRule rule;
          double max = -1;
          r.number("max_length_m", max, 0.1, 1e6);
          if (max > 0) rule.max_length_m = max;
          r.text("media", rule.media);
          if (!r.has("media")) {
            s.loader().error(location_of(item), fmt::format("{}: missing key 'media'", path));
          } else if (!rule.media.empty() && !kMedia.count(rule.media)) {
            s.loader().error(location_of(item["media"]),
                             fmt::format("{}.media: unknown media '{}'; one of dac, aoc, mmf, smf",
                                         path, rule.media));
          }
          rules.push_back(rule);
        })) {
      m.rules = rules;
    }
    std::vector<double> bins;
    if (s.list("length_bins_m", [&](const YAML::Node& item, const std::string& path) {
          auto d = Section::parse_number(item);
          if (!d || *d < 1 || *d != std::floor(*d)) {
            s.loader().error(location_of(item),
                             fmt::format("{}: expected a whole number of metres", path));
            return;
          }
          if (!bins.empty() && *d <= bins.back()) {
            s.loader().error(location_of(item), fmt::format("{}: length bins must increase", path));
          }
          bins.push_back(*d);
        })) {
      m.length_bins_m = bins;
    }
    std::vector<OpticPart> optics;
    if (s.list("optics", [&](const YAML::Node& item, const std::string& path) {
          if (!item.IsMap()) {
            s.loader().error(location_of(item),
                             fmt::format("{}: expected a mapping, got {}", path, kind_of(item)));
            return;
          }
          Section o(s.loader(), item, path);
          OpticPart part;
          o.text("media", part.media);
          o.speed("speed_gbps", part.speed_gbps);
          o.text("part", part.part);
          part.connector = default_connector(part.media, part.speed_gbps);
          std::string connector;
          o.text("connector", connector);
          if (!connector.empty() && !parse_connector(connector, part.connector)) {
            s.loader().error(location_of(item["connector"]),
                             fmt::format("{}.connector: unknown connector '{}'; one of MPO-12, MPO-16, "
                                         "LC-duplex", path, connector));
          }
          optics.push_back(part);
        })) {
      m.optics = optics;
    }
    s.number("patch_beyond_m", m.patch_beyond_m, 1, 100000);
    s.integer("trunk_lanes", m.trunk_lanes, 1, 144);
    s.integer("panel_ports", m.panel_ports, 1, 288);
    s.section("fibre", [&](Section& f) {
      // The grades ISO/IEC 11801 names: OM3-OM5 multimode, OS1-OS2 single-mode.
      auto grade = [&](const char* key, std::string& out, const std::vector<std::string>& grades) {
        std::string value = out;
        f.text(key, value);
        if (std::find(grades.begin(), grades.end(), value) != grades.end()) {
          out = value;
        } else if (value != out) {
          f.loader().error(spec.locations[f.qualified(key)],
                           fmt::format("{}: '{}' is not a {} fibre grade; one of {}", f.qualified(key), value,
                                       key, fmt::join(grades, ", ")));
        }
      };
      grade("mmf", m.fibre_mmf, {"OM3", "OM4", "OM5"});
      grade("smf", m.fibre_smf, {"OS1", "OS2"});
    });
  });
  top.section("reliability", [&](Section& s) {
    auto& r = spec.reliability;
    s.number("nic_tor_link_monthly_pct", r.nic_tor_link_monthly_pct, 0, 100);
    s.number("tor_monthly_pct", r.tor_monthly_pct, 0, 100);
    s.section("link_flaps_per_day", [&](Section& f) {
      f.integer64("min", r.link_flaps_per_day_min, 0, 1'000'000'000);
      f.integer64("max", r.link_flaps_per_day_max, 0, 1'000'000'000);
    });
    if (r.link_flaps_per_day_min > r.link_flaps_per_day_max) {
      s.loader().error(spec.locations["reliability.link_flaps_per_day.min"],
                       fmt::format("reliability.link_flaps_per_day: min ({}) is above max ({})",
                                   r.link_flaps_per_day_min, r.link_flaps_per_day_max));
    }
  });
  top.section("switches", [&](Section& s) {
    auto& w = spec.switches;
    // 1280: the least IPv6 allows; 9216: the largest frame common switches take.
    s.integer("mtu", w.mtu, 1280, 9216);
    s.integer("ioam_namespace", w.ioam_namespace, 0, 65534);  // 0xFFFF is IOAM's "none"
    s.integer("bgp_keepalive_s", w.bgp_keepalive_s, 1, 3600);
    s.integer("bgp_hold_s", w.bgp_hold_s, 3, 65535);
    s.integer("neighbour_reachable_s", w.neighbour_reachable_s, 1, 86400);
    if (w.bgp_hold_s < 3 * w.bgp_keepalive_s) {
      s.loader().error(spec.locations["switches.bgp_hold_s"],
                       fmt::format("switches.bgp_hold_s ({}) must be at least three keepalives "
                                   "(3 x switches.bgp_keepalive_s = {}; RFC 4271 4.4)",
                                   w.bgp_hold_s, 3 * w.bgp_keepalive_s));
    }
  });
  top.section("transport", [&](Section& s) {
    auto& t = spec.transport;
    // 1280: the least IPv6 allows; 9216: the largest frame common switches take.
    s.integer("mtu", t.mtu, 1280, 9216);
    s.integer("frontend_mtu", t.frontend_mtu, 1280, 9216);
    std::string mode = t.bond_mode;
    s.text("bond_mode", mode);
    // The modes mlx5 RoCE LAG accepts (FIELD.md section 4).
    const std::vector<std::string> modes{"balance-xor", "802.3ad", "active-backup"};
    bool known = false;
    for (const auto& m : modes) known = known || m == mode;
    if (known) {
      t.bond_mode = mode;
    } else if (mode != t.bond_mode) {
      std::string guess = closest_match(mode, modes);
      s.loader().error(spec.locations["transport.bond_mode"],
                       fmt::format("transport.bond_mode: '{}' is not a bond mode RoCE LAG takes; one of "
                                   "balance-xor, 802.3ad, active-backup{}", mode,
                                   guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
    }
    s.integer("arp_interval_ms", t.arp_interval_ms, 1, 10000);
    s.integer("miimon_ms", t.miimon_ms, 1, 10000);
    s.integer("switch_latency_ns", t.switch_latency_ns, 0, 1000000);
    s.integer("nic_latency_ns", t.nic_latency_ns, 0, 1000000);
    s.number("fibre_ns_per_m", t.fibre_ns_per_m, 0, 100);
    s.number("bdp_headroom", t.bdp_headroom, 1, 16);
    // NCCLX's hard limits: 128 data QPs (CTRAN_HARDCODED_MAX_QPS), 256
    // outstanding messages per QP (MAX_SEND_WR).
    s.integer("qps", t.qps, 1, 128);
    s.integer("max_qps", t.max_qps, 1, 128);
    s.integer("segment_bytes", t.segment_bytes, 4096, 1 << 30);
    s.integer("max_segment_bytes", t.max_segment_bytes, 4096, 1 << 30);
    s.integer("max_msgs", t.max_msgs, 1, 256);
    s.integer("dqplb_max_hops", t.dqplb_max_hops, 0, 15);
    auto floor_above = [&](const char* floor, int low, const char* ceiling, int high) {
      if (low <= high) return;
      s.loader().error(spec.locations[std::string("transport.") + ceiling],
                       fmt::format("transport.{} ({}) is below transport.{} ({}): a ceiling under its floor",
                                   ceiling, high, floor, low));
    };
    floor_above("qps", t.qps, "max_qps", t.max_qps);
    floor_above("segment_bytes", t.segment_bytes, "max_segment_bytes", t.max_segment_bytes);
    // IB verbs field widths: local ACK timeout 5 bits, retry count 3 bits.
    s.integer("ib_timeout", t.ib_timeout, 1, 31);
    s.integer("ib_retry_cnt", t.ib_retry_cnt, 0, 7);
    s.integer("ib_gid_index", t.ib_gid_index, 0, 255);
    s.integer("ib_traffic_class", t.ib_traffic_class, 0, 255);
  });
}

// YAML itself does not promise valid UTF-8 in error paths; names end up in
// labels and databases, so bad bytes are refused up front, with their place.
bool check_text(std::string_view text, Loader& loader) {
  int line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    uint32_t cp = 0;
    const size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      loader.error({line, column}, fmt::format("invalid UTF-8 byte 0x{:02x}", c));
      return false;
    }
    if (c == 0) {
      loader.error({line, column}, "NUL byte in spec");
      return false;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
  return true;
}

Result<Spec> parse_into(Spec spec, std::string_view text, const std::string& name,
                        bool require_version) {
  spec.source_name = name;
  spec.source_text = std::string(text);
  spec.locations.clear();
  Loader loader(text, name, spec);
  if (text.size() > kMaxSpecBytes) {
    return Error{fmt::format("{}: spec is {} bytes; a pod spec is at most {} bytes\n", name,
                             text.size(), kMaxSpecBytes)};
  }
  if (!check_text(text, loader)) return Error{loader.report()};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard: it stops parsing 500 levels down, before its
    // recursion can overflow the stack.
    loader.error({e.mark.line + 1, e.mark.column + 1},
                 fmt::format("YAML nested too deep (yaml-cpp stops at {} levels); a pod spec needs five",
                             e.depth()));
    return Error{loader.report()};
  } catch (const YAML::Exception& e) {
    loader.error({e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
    return Error{loader.report()};
  }
  if (!root.IsMap()) {
    loader.error(root.IsNull() ? SourceLocation{} : location_of(root),
                 fmt::format("a pod spec is a mapping of sections, got {}", kind_of(root)));
    return Error{loader.report()};
  }
  int64_t nodes = 0;
  count_nodes(root, nodes);
  if (nodes > kMaxSpecNodes) {
    loader.error({}, fmt::format("the spec holds more than {} YAML values (each use of an alias counts "
                                 "its anchor's values again); a pod spec holds a few hundred",
                                 kMaxSpecNodes));
    return Error{loader.report()};
  }
  if (auto spilled = first_spilled_scalar(root, text)) {
    loader.error({spilled->line, spilled->column}, spilled->message);
    return Error{loader.report()};
  }
  try {
    Section top(loader, root, "");
    read_document(top, spec, require_version);
  } catch (const YAML::Exception& e) {
    loader.error({e.mark.line + 1, e.mark.column + 1}, "YAML error: " + e.msg);
  }
  if (loader.failed()) return Error{loader.report()};
  return spec;
}

}  // namespace

Result<Spec> default_spec() {
  return parse_into(Spec{}, default_spec_text(), "<default>", true);
}

Result<Spec> load_spec(std::string_view text, const std::string& source_name) {
  auto base = default_spec();
  if (!base) return Error{"internal error: the built-in spec does not load:\n" + base.error().message};
  return parse_into(std::move(base.value()), text, source_name, true);
}

Result<Spec> load_spec_file(const std::string& path) {
  auto text = read_input_file(path, "a pod spec", kMaxSpecBytes);
  if (!text) return text.error();
  return load_spec(text.value(), path);
}

}  // namespace hpn
