#include "blueprint/render.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "blueprint/csv.h"
#include "blueprint/text_table.h"

namespace hpn {

bool parse_format(const std::string& text, OutputFormat& out) {
  if (text == "table" || text == "text") out = OutputFormat::table;
  else if (text == "json") out = OutputFormat::json;
  else if (text == "csv") out = OutputFormat::csv;
  else return false;
  return true;
}

namespace {

std::string opt(int v) { return v == kNone ? "" : std::to_string(v); }
nlohmann::ordered_json opt_json(int64_t v) {
  return v == kNone ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
}

}  // namespace

void render_devices(const std::vector<DeviceRow>& rows, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& d : rows) {
      list.push_back({{"name", d.name}, {"role", d.role}, {"pod", opt_json(d.pod)},
                      {"segment", opt_json(d.segment)}, {"plane", opt_json(d.plane)},
                      {"rail", opt_json(d.rail)}, {"node_id", d.node_id}, {"rack", d.rack},
                      {"ru", opt_json(d.ru)}, {"state", d.state}, {"asn", opt_json(d.asn)}});
    }
    out << list.dump(2) << '\n';
    return;
  }
  const std::vector<std::string> header{"name", "role", "pod", "segment", "plane", "rail",
                                        "node_id", "rack", "ru", "state", "asn"};
  auto cells = [](const DeviceRow& d) {
    return std::vector<std::string>{d.name, d.role, opt(d.pod), opt(d.segment), opt(d.plane),
                                    opt(d.rail), std::to_string(d.node_id), d.rack, opt(d.ru),
                                    d.state, d.asn == kNone ? "" : std::to_string(d.asn)};
  };
  if (format == OutputFormat::csv) {
    CsvWriter w(out);
    for (const auto& h : header) w.field(h);
    w.end_row();
    for (const auto& d : rows) {
      for (const auto& c : cells(d)) w.field(c);
      w.end_row();
    }
    return;
  }
  TextTable table(header);
  for (const auto& d : rows) table.add(cells(d));
  table.render(out);
}

namespace {

// A patched run's cords as seen from one end: the near end's first.
std::vector<int> cords_from(const CableRow& c, bool from_a) {
  std::vector<int> cords = c.cords_m;
  if (!from_a) std::reverse(cords.begin(), cords.end());
  return cords;
}

// The stocked cord to take from the shelf: one length, or a patched run's
// cords ("10+10").
std::string stock_text(const CableRow& c, bool from_a) {
  if (!c.patched()) return std::to_string(c.stock_length_m);
  std::string s;
  for (int m : cords_from(c, from_a)) s += (s.empty() ? "" : "+") + std::to_string(m);
  return s;
}

// JSON: a number, or null for a patched run, whose cords are listed beside it.
void stock_json(nlohmann::ordered_json& j, const CableRow& c, bool from_a) {
  j["stock_length_m"] = c.patched() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.stock_length_m);
  j["patch_cords_m"] = cords_from(c, from_a);
  j["via"] = c.via.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.via);
}

}  // namespace

void render_cables(const std::string& device, const std::vector<CableRow>& rows,
                   OutputFormat format, std::ostream& out) {
  struct View {
    const CableRow* c;
    std::string near_port, far_device, far_port, label, far_rack;
    int far_ru;
  };
  std::vector<View> views;
  for (const auto& c : rows) {
    bool a = c.a_device == device;
    views.push_back({&c, a ? c.a_port : c.z_port, a ? c.z_device : c.a_device, a ? c.z_port : c.a_port,
                     a ? c.label_a : c.label_z, a ? c.z_rack : c.a_rack, a ? c.z_ru : c.a_ru});
  }
  auto unit = [](int ru) { return ru == kNone ? std::string() : std::to_string(ru); };
  if (format == OutputFormat::json) {
    auto list = nlohmann::ordered_json::array();
    auto ru = [](int u) { return u == kNone ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(u); };
    for (const auto& v : views) {
      list.push_back({{"cable_id", v.c->cable_id}, {"kind", v.c->kind},
                      {"device", device}, {"port", v.near_port},
                      {"far_device", v.far_device}, {"far_port", v.far_port},
                      {"far_rack", v.far_rack}, {"far_ru", ru(v.far_ru)},
                      {"speed_gbps", v.c->speed_gbps}, {"state", v.c->state},
                      {"length_m", v.c->length_m}, {"stock_length_m", v.c->stock_length_m},
                      {"media", v.c->media}, {"label", v.label},
                      {"a_device", v.c->a_device}, {"a_port", v.c->a_port},
                      {"a_rack", v.c->a_rack}, {"a_ru", ru(v.c->a_ru)},
                      {"z_device", v.c->z_device}, {"z_port", v.c->z_port},
                      {"z_rack", v.c->z_rack}, {"z_ru", ru(v.c->z_ru)},
                      {"label_a", v.c->label_a}, {"label_z", v.c->label_z}});
      stock_json(list.back(), *v.c, v.c->a_device == device);
      const bool from_a = v.c->a_device == device;
      auto optic = [](const std::string& o) { return o.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o); };
      list.back()["optic"] = optic(from_a ? v.c->a_optic : v.c->z_optic);
      list.back()["far_optic"] = optic(from_a ? v.c->z_optic : v.c->a_optic);
    }
    out << list.dump(2) << '\n';
    return;
  }
  // The far end is where the technician walks to: its rack and unit.
  // The estimated run, and beside it the stocked cord to take from the shelf.
  std::vector<std::string> header{"cable_id", "kind",       "port",     "far_device",     "far_port", "far_rack",
                                  "far_ru",   "speed_gbps", "length_m", "stock_length_m", "media",    "state"};
  // The optics, where they were looked up (`cable`): the near end's, the far end's.
  const bool optics = std::any_of(views.begin(), views.end(), [](const View& v) {
    return !v.c->a_optic.empty() || !v.c->z_optic.empty();
  });
  if (optics) {
    header.push_back("optic");
    header.push_back("far_optic");
  }
  auto cells = [&](const View& v) {
    std::vector<std::string> row{v.c->cable_id,   v.c->kind,     v.near_port,
                                 v.far_device,    v.far_port,    v.far_rack,
                                 unit(v.far_ru),  std::to_string(v.c->speed_gbps),
                                 std::to_string(v.c->length_m), stock_text(*v.c, v.c->a_device == device),
                                 v.c->media,      v.c->state};
    if (optics) {
      const bool from_a = v.c->a_device == device;
      row.push_back(from_a ? v.c->a_optic : v.c->z_optic);
      row.push_back(from_a ? v.c->z_optic : v.c->a_optic);
    }
    return row;
  };
  if (format == OutputFormat::csv) {
    // The label too: a pull list printed from the CSV carries what goes on the cable.
    header.push_back("label");
    CsvWriter w(out);
    for (const auto& h : header) w.field(h);
    w.end_row();
    for (const auto& v : views) {
      for (const auto& c : cells(v)) w.field(c);
      w.field(v.label);
      w.end_row();
    }
    return;
  }
  TextTable table(header);
  for (const auto& v : views) table.add(cells(v));
  table.render(out);
}

void render_pull_list(const std::vector<PullEntry>& entries, OutputFormat format, std::ostream& out) {
  auto unit = [](int ru) { return ru == kNone ? std::string() : std::to_string(ru); };
  if (format == OutputFormat::json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& e : entries) {
      const PulledEnd near = e.near(), far = e.far();
      const CableRow& c = e.cable;
      list.push_back({{"rack", near.rack}, {"device", near.device}, {"ru", opt_json(near.ru)},
                      {"port", near.port}, {"far_rack", far.rack}, {"far_ru", opt_json(far.ru)},
                      {"far_device", far.device}, {"far_port", far.port}, {"cable_id", c.cable_id},
                      {"label", near.label}, {"media", c.media}, {"speed_gbps", c.speed_gbps},
                      {"stock_length_m", c.stock_length_m}, {"length_m", c.length_m}, {"kind", c.kind},
                      {"state", c.state}, {"end", e.near_is_a ? "a" : "z"}});
      stock_json(list.back(), c, e.near_is_a);
    }
    out << list.dump(2) << '\n';
    return;
  }
  const std::vector<std::string> header{"rack",     "device", "ru",         "port",           "far_rack",
                                        "far_ru",   "far_device", "far_port", "cable_id",     "label",
                                        "media",    "speed_gbps", "stock_length_m", "length_m", "kind",
                                        "state"};
  auto cells = [&](const PullEntry& e) {
    const PulledEnd near = e.near(), far = e.far();
    const CableRow& c = e.cable;
    return std::vector<std::string>{near.rack,   near.device,   unit(near.ru),
                                    near.port,   far.rack,      unit(far.ru),
                                    far.device,  far.port,      c.cable_id,
                                    near.label,  c.media,       std::to_string(c.speed_gbps),
                                    stock_text(c, e.near_is_a), std::to_string(c.length_m),
                                    c.kind,      c.state};
  };
  if (format == OutputFormat::csv) {
    CsvWriter w(out);
    for (const auto& h : header) w.field(h);
    w.end_row();
    for (const auto& e : entries) {
      for (const auto& c : cells(e)) w.field(c);
      w.end_row();
    }
    return;
  }
  TextTable table(header);
  for (const auto& e : entries) table.add(cells(e));
  table.render(out);
}

}  // namespace hpn
