// The lab pod's blueprint, a wiring to change, and the observations the
// forwarding model gives for a probe plan that covers every host cable both
// ways and every ToR uplink many times.
#pragma once

#include <catch2/catch.hpp>

#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "test_util.h"
#include "validator/diff.h"
#include "fabricmodel/forwarding_model.h"

namespace hpn::test {

struct LabFixture {
  Plan plan;
  std::unique_ptr<FabricIndex> fabric;
  std::vector<lab::WiredCable> wiring;

  LabFixture() {
    auto spec = load_spec_file(source_path("examples/lab-pod.yaml").string());
    REQUIRE(spec.ok());
    auto made = make_plan(std::move(spec.value()), "test");
    REQUIRE(made.ok());
    plan = std::move(made.value());
    fabric = std::make_unique<FabricIndex>(plan.blueprint);
    wiring = fabricmodel::planned_wiring(*fabric);
  }

  const Blueprint& bp() const { return plan.blueprint; }
  // Every host's device index, in plan order.
  std::vector<int> hosts() const {
    std::vector<int> out;
    for (size_t d = 0; d < bp().devices.size(); ++d) {
      if (bp().devices[d].role == Role::host) out.push_back(static_cast<int>(d));
    }
    return out;
  }
  int cable(const std::string& id) const {
    for (size_t i = 0; i < bp().cables.size(); ++i) if (bp().cables[i].id == id) return static_cast<int>(i);
    FAIL("no cable " << id);
    return -1;
  }
  // The cable whose a-end is device:port.
  int cable_from(const std::string& device, const std::string& port) const {
    for (size_t i = 0; i < bp().cables.size(); ++i) {
      const Cable& c = bp().cables[i];
      if (bp().devices[c.a_device].name == device && c.a_port == port) return static_cast<int>(i);
    }
    FAIL("no cable from " << device << ":" << port);
    return -1;
  }
  PortRef port(const std::string& device, const std::string& port) const {
    int d = fabric->device_by_name(device);
    return {d, fabric->port_by_name(d, port)};
  }

  // The wiring changed as a technician would: cable `c`'s far (z) end, or
  // its near (a) end, plugged into `to` (an invalid port: unplugged, the
  // cable not there); two cables' ends exchanged; an extra cable; a fault as the wiring
  // file's `fault` column names it.
  PortRef z_of(int c) const { return fabricmodel::z_end(*fabric, wiring[c]); }
  void plug_z(int c, PortRef to) { fabricmodel::plug_z(*fabric, wiring[c], to); }
  void plug_a(int c, PortRef to) { fabricmodel::plug_a(*fabric, wiring[c], to); }
  void swap_z(int a, int b) { fabricmodel::swap_z_ends(wiring[a], wiring[b]); }
  void swap_a(int a, int b) { fabricmodel::swap_a_ends(wiring[a], wiring[b]); }
  // An extra cable, not in the blueprint, between `a` and `z`.
  void add_cable(PortRef a, PortRef z) {
    wiring.emplace_back();
    fabricmodel::plug_a(*fabric, wiring.back(), a);
    fabricmodel::plug_z(*fabric, wiring.back(), z);
  }
  void set_fault(int c, std::string_view text) { REQUIRE(lab::parse_fault(text, wiring[c].fault)); }

  // Every back-end port of every host probes every host of the other
  // segment on both rails, from two source ports each.
  probe::ObservationSet observe() const {
    fabricmodel::FabricModel model(*fabric, wiring);
    probe::ObservationSet out;
    uint64_t id = 0;
    const auto& devices = bp().devices;
    for (size_t h = 0; h < devices.size(); ++h) {
      if (devices[h].role != Role::host) continue;
      const auto& ports = bp().panels[devices[h].panel].ports;
      for (size_t p = 0; p < ports.size(); ++p) {
        if (ports[p].nic < 1) continue;
        for (size_t d = 0; d < devices.size(); ++d) {
          if (devices[d].role != Role::host || devices[d].segment == devices[h].segment) continue;
          for (int nic = 1; nic <= 2; ++nic) {
            for (int sport : {49152, 49153}) {
              // Source ports step with the probe number (argument order is unsequenced).
              const int source_port = sport + static_cast<int>(id % 4000);
              ++id;
              auto obs = model.probe(static_cast<int>(h), static_cast<int>(p), static_cast<int>(d), nic,
                                     source_port, id);
              out.add_all(obs);
            }
          }
        }
      }
    }
    return out;
  }

  validator::Report verify() const {
    return validator::diff(*fabric, validator::collect_witnesses(*fabric, observe()));
  }
};

}  // namespace hpn::test
