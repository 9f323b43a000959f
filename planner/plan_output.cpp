#include "planner/plan_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "blueprint/atomic_file.h"
#include "blueprint/csv.h"
#include "blueprint/staged_dir.h"
#include "blueprint/store.h"

namespace hpn {

namespace fs = std::filesystem;

void write_cabling_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  for (const char* column : kCablingColumns) w.field(column);
  w.end_row();
  auto rack_of = [&](const Device& d) {
    return d.rack == kNone ? std::string_view{} : std::string_view(bp.racks[d.rack].name);
  };
  for (const auto& c : bp.cables) {
    const Device& a = bp.devices[c.a_device];
    const Device& z = bp.devices[c.z_device];
    w.field(c.id).field(to_string(c.kind)).field(a.name).field(c.a_port);
    w.field(z.name).field(c.z_port).field(c.speed_gbps).field(to_string(c.state));
    w.field(c.length_m).field(c.media).field(cable_label(bp, c, true)).field(cable_label(bp, c, false));
    w.field(rack_of(a)).null_or(a.ru, kNone).field(rack_of(z)).null_or(z.ru, kNone).null_or(c.stock_length_m, 0);
    w.field(c.patched() ? c.legs : 1).field(end_panel(bp, c, true)).field(end_panel(bp, c, false));
    w.end_row();
  }
}

void write_legs_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  for (const char* column : kLegColumns) w.field(column);
  w.end_row();
  for (const auto& c : bp.cables) {
    if (!c.patched()) continue;
    const Device& a = bp.devices[c.a_device];
    const Device& z = bp.devices[c.z_device];
    const std::string a_end = a.name + ":" + c.a_port, z_end = z.name + ":" + c.z_port;
    for (int i = 0; i < c.legs; ++i) {
      const RunLeg& l = bp.legs[c.first_leg + i];
      w.field(c.id).field(i + 1).field(l.trunk == kNone ? "cord" : "trunk");
      w.field(l.from_panel == kNone ? a_end : panel_port_name(bp, l.from_panel, l.from_port));
      w.field(l.to_panel == kNone ? z_end : panel_port_name(bp, l.to_panel, l.to_port));
      if (l.trunk == kNone) w.field(std::string_view{}).field(std::string_view{});
      else w.field(bp.trunks[l.trunk].id).field(l.lane);
      w.field(l.length_m).field(l.stock_length_m);
      // A cord has its run's fibre and connector: the trunks' of its run.
      const Trunk* trunk = nullptr;
      for (int k = 0; k < c.legs && !trunk; ++k) {
        const RunLeg& t = bp.legs[c.first_leg + k];
        if (t.trunk != kNone) trunk = &bp.trunks[t.trunk];
      }
      if (trunk) w.field(trunk->fibre).field(trunk->connector).field(trunk->polarity);
      else w.field(std::string_view{}).field(std::string_view{}).field(std::string_view{});
      w.end_row();
    }
  }
}

void write_devices_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"name", "role", "pod", "segment", "plane", "rail", "node_id", "rack", "ru", "state", "asn"});
  for (const auto& d : bp.devices) {
    w.field(d.name).field(to_string(d.role)).null_or(d.pod, kNone).null_or(d.segment, kNone);
    w.null_or(d.plane, kNone).null_or(d.rail, kNone).field(int64_t{d.node_id});
    w.field(d.rack == kNone ? std::string_view{} : std::string_view(bp.racks[d.rack].name));
    w.null_or(d.ru, kNone).field(to_string(d.state)).null_or(d.asn, kNone);
    w.end_row();
  }
}

namespace {

void write_interfaces_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"device", "interface", "purpose", "nic", "ipv4", "ipv4_len", "ipv6", "ipv6_len", "mac"});
  for (const auto& i : bp.interfaces) {
    w.field(bp.devices[i.device].name).field(i.name).field(to_string(i.purpose)).null_or(i.nic, kNone);
    w.field(i.ipv4).null_or(i.ipv4_len, 0).field(i.ipv6).null_or(i.ipv6_len, 0).field(i.mac);
    w.end_row();
  }
}

void write_links_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"cable_id", "a_ipv4", "z_ipv4", "ipv4_len", "a_ipv6", "z_ipv6", "ipv6_len"});
  for (const auto& l : bp.links) {
    w.field(bp.cables[l.cable].id).field(l.a_ipv4).field(l.z_ipv4).field(l.ipv4_len);
    w.field(l.a_ipv6).field(l.z_ipv6).field(l.ipv6_len);
    w.end_row();
  }
}

void write_core_rules_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"core", "in_port", "dst_pod", "out_port", "fallback", "status"});
  for (const auto& r : bp.core_rules) {
    w.field(bp.devices[r.core].name).field(r.in_port).field(r.dst_pod).field(r.out_port);
    w.field(r.fallback).field(r.status);
    w.end_row();
  }
}

void write_racks_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"name", "hall", "row", "position", "purpose"});
  for (const auto& r : bp.racks) {
    w.field(r.name).field(r.hall).field(r.row).field(r.position).field(r.purpose);
    w.end_row();
  }
}

void write_bom_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"category", "part", "media", "length_m", "count", "fibre", "connector", "polarity"});
  for (const auto& b : bp.bom) {
    w.field(b.category).field(b.part).field(b.media).null_or(b.length_m, 0).field(b.count);
    w.field(b.fibre).field(b.connector).field(b.polarity);
    w.end_row();
  }
}

void write_warnings_csv(const Blueprint& bp, std::ostream& out) {
  CsvWriter w(out);
  w.row({"cable", "cause", "message"});
  for (const auto& x : bp.warnings) {
    w.field(x.cable).field(x.cause).field(x.message);
    w.end_row();
  }
}

Status write_file(const fs::path& path, const std::function<void(std::ostream&)>& body) {
  return write_new_file(path.string(), body);
}

}  // namespace

namespace {

const OutputKind kPlan{"the plan", "an hpnctl plan", "blueprint.db"};

}  // namespace

Status check_plan_target(const std::string& dir) { return StagedDirectory::check_target(dir, kPlan); }

namespace {

}  // namespace

Status write_sheets(const Blueprint& bp, const PlanSummary& summary, const fs::path& tmp,
                    const std::function<void(const char*)>& done) {
  const std::vector<std::pair<const char*, std::function<void(std::ostream&)>>> files{
      {"cabling.csv", [&](std::ostream& o) { write_cabling_csv(bp, o); }},
      {"legs.csv", [&](std::ostream& o) { write_legs_csv(bp, o); }},
      {"devices.csv", [&](std::ostream& o) { write_devices_csv(bp, o); }},
      {"interfaces.csv", [&](std::ostream& o) { write_interfaces_csv(bp, o); }},
      {"links.csv", [&](std::ostream& o) { write_links_csv(bp, o); }},
      {"core-rules.csv", [&](std::ostream& o) { write_core_rules_csv(bp, o); }},
      {"racks.csv", [&](std::ostream& o) { write_racks_csv(bp, o); }},
      {"bom.csv", [&](std::ostream& o) { write_bom_csv(bp, o); }},
      {"warnings.csv", [&](std::ostream& o) { write_warnings_csv(bp, o); }},
      {"summary.json", [&](std::ostream& o) { o << summary_json(summary).dump(2) << '\n'; }},
      {"spec.yaml", [&](std::ostream& o) { o << bp.spec_yaml; }},
  };
  for (const auto& [name, body] : files) {
    if (auto st = write_file(tmp / name, body); !st) return st;
    if (done) done(name);
  }

  return {};
}

Status write_plan(const Blueprint& bp, const PlanSummary& summary, const std::string& dir,
                  const ProgressFn& progress) {
  auto staged = StagedDirectory::begin(dir, kPlan);
  if (!staged) return staged.error();
  const fs::path& tmp = staged->path();
  std::function<void(const char*)> done = [&](const char* file) { if (progress) progress(file); };
  // The database and the sheets are independent: write them side by side.
  Status db_status;
  std::thread db_writer([&] { db_status = write_blueprint_db(bp, (tmp / "blueprint.db").string()); });
  Status sheets = write_sheets(bp, summary, tmp, done);
  db_writer.join();
  if (!db_status) return db_status;
  done("blueprint.db");
  if (!sheets) return sheets;
  return staged->commit();
}

}  // namespace hpn
