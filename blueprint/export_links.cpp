#include "blueprint/export_links.h"

#include <string>

#include "blueprint/csv.h"

namespace hpn {

namespace {

// A DOT or JSON string body: quote and backslash escaped, control
// characters dropped (names in a plan never carry them; the spec forbids it).
void append_escaped(std::string& buffer, std::string_view text) {
  for (char c : text) {
    if (c == '"' || c == '\\') buffer += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) buffer += c;
  }
}

// Output is assembled in a buffer and written in large pieces: a pod has
// 52,080 cables and per-item stream insertion dominates otherwise.
class Buffered {
 public:
  explicit Buffered(std::ostream& out) : out_(out) { text_.reserve(kChunk + 4096); }
  ~Buffered() { flush(); }
  Buffered(const Buffered&) = delete;
  Buffered& operator=(const Buffered&) = delete;
  std::string& text() { return text_; }
  void maybe_flush() {
    if (text_.size() >= kChunk) flush();
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  void flush() {
    out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }
  std::ostream& out_;
  std::string text_;
};

}  // namespace

void write_ptm_topology(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out) {
  Buffered b(out);
  std::string& s = b.text();
  s += "graph G {\n";
  for (int i : cables) {
    const Cable& c = bp.cables[i];
    s += "  \"";
    append_escaped(s, bp.devices[c.a_device].name);
    s += "\":\"";
    append_escaped(s, c.a_port);
    s += "\" -- \"";
    append_escaped(s, bp.devices[c.z_device].name);
    s += "\":\"";
    append_escaped(s, c.z_port);
    s += "\";\n";
    b.maybe_flush();
  }
  s += "}\n";
}

void write_sonic_links(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out) {
  CsvWriter w(out);
  w.row({"StartDevice", "StartPort", "EndDevice", "EndPort", "BandWidth", "VlanID", "VlanMode"});
  for (int i : cables) {
    const Cable& c = bp.cables[i];
    w.field(bp.devices[c.a_device].name).field(c.a_port).field(bp.devices[c.z_device].name).field(c.z_port);
    w.field(int64_t{c.speed_gbps} * 1000).field("").field("");
    w.end_row();
  }
}

std::string_view netbox_cable_type(std::string_view media) {
  if (media == "mmf") return "mmf";
  if (media == "smf") return "smf";
  if (media == "dac") return "dac-passive";
  if (media == "aoc") return "aoc";
  return "";
}

std::string_view netbox_cable_color(std::string_view media) {
  if (media == "mmf") return "00ffff";  // TIA-598-C: aqua, laser-optimised 50/125 multimode
  if (media == "smf") return "ffff00";  // TIA-598-C: yellow, single-mode
  return "";
}

void write_netbox_cables(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out) {
  CsvWriter w(out);
  w.row({"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name", "type",
         "status", "label", "color", "length", "length_unit"});
  for (int i : cables) {
    const Cable& c = bp.cables[i];
    w.field(bp.devices[c.a_device].name).field("dcim.interface").field(c.a_port);
    w.field(bp.devices[c.z_device].name).field("dcim.interface").field(c.z_port);
    // A plan's cables are not pulled yet: NetBox's status for that is "planned".
    w.field(netbox_cable_type(c.media)).field("planned").field(c.id).field(netbox_cable_color(c.media));
    w.field(c.length_m).field("m");
    w.end_row();
  }
}

void write_batfish_layer1(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out) {
  Buffered b(out);
  std::string& s = b.text();
  auto node = [&](const char* key, const std::string& device, const std::string& port) {
    s += "      \"";
    s += key;
    s += "\": {\"hostname\": \"";
    append_escaped(s, device);
    s += "\", \"interfaceName\": \"";
    append_escaped(s, port);
    s += "\"}";
  };
  s += "{\n  \"edges\": [";
  bool first = true;
  for (int i : cables) {
    const Cable& c = bp.cables[i];
    const std::string& a = bp.devices[c.a_device].name;
    const std::string& z = bp.devices[c.z_device].name;
    for (int direction = 0; direction < 2; ++direction) {
      s += first ? "\n    {\n" : ",\n    {\n";
      first = false;
      if (direction == 0) {
        node("node1", a, c.a_port);
        s += ",\n";
        node("node2", z, c.z_port);
      } else {
        node("node1", z, c.z_port);
        s += ",\n";
        node("node2", a, c.a_port);
      }
      s += "\n    }";
    }
    b.maybe_flush();
  }
  s += first ? "]\n}\n" : "\n  ]\n}\n";
}

}  // namespace hpn
