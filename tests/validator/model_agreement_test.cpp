// The probes' forwarding model (FabricModel, a five-tuple hash per switch)
// against the route computation that the lab's routing tests hold FRR's
// routes to (fabricmodel/routes.h, compute_routes): on the lab pod, every
// hop a probe takes leaves by a next hop of that switch's route to the
// probe's destination, and the flows between them use every such next hop.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "fabricmodel/forwarding_model.h"
#include "fabricmodel/routes.h"
#include "lab/lab_topology.h"
#include "lab_fixture.h"

using namespace hpn;
using hpn::test::LabFixture;

namespace {

// (switch, destination address) -> the names of the ports it sends by.
using PortsToward = std::map<std::pair<int, std::string>, std::set<std::string>>;

// The /128 routes compute_routes gives each switch on the fixture's wiring,
// as the lab would be built from it.
PortsToward bgp_routes(const LabFixture& lab) {
  const Blueprint& bp = lab.bp();
  lab::Wiring wiring;
  for (const auto& c : lab.wiring) {
    const bool plugged = fabricmodel::a_end(*lab.fabric, c).valid() && fabricmodel::z_end(*lab.fabric, c).valid();
    if (plugged && lab::in_lab(bp.devices[c.a_device]) && lab::in_lab(bp.devices[c.z_device])) {
      wiring.cables.push_back(c);
    }
  }
  auto topology = lab::build_topology(bp, wiring, "0000");
  REQUIRE(topology);
  const auto routes = fabricmodel::compute_routes(bp, *topology);
  PortsToward out;
  for (size_t node = 0; node < routes.size(); ++node) {
    const int device = topology->nodes[node].device;
    std::map<std::string, std::string> port_of;  // this device's ifname -> its port
    for (const auto& link : topology->links) {
      for (const lab::LabPort* end : {&link.a, &link.z}) {
        if (end->device == device) port_of[end->ifname] = end->port;
      }
    }
    for (const auto& r : routes[node].routes) {
      if (r.table != lab::kMainTable || r.prefix_len != 128) continue;
      auto& ports = out[{device, r.prefix}];
      for (const auto& hop : r.nexthops) ports.insert(port_of.at(hop.ifname));
    }
  }
  return out;
}

// Every probe the model sends from each back-end port of each host to
// each NIC of every other host, `flows` source ports each: fn(records).
template <class Fn>
void probe_all(const LabFixture& lab, fabricmodel::FabricModel& model, int flows, Fn fn) {
  const Blueprint& bp = lab.bp();
  uint64_t id = 0;
  for (int h : lab.hosts()) {
    const auto& ports = bp.panels[bp.devices[h].panel].ports;
    for (size_t p = 0; p < ports.size(); ++p) {
      if (ports[p].nic < 1) continue;
      for (int d : lab.hosts()) {
        if (d == h) continue;
        for (int nic = 1; nic <= 2; ++nic) {
          for (int flow = 0; flow < flows; ++flow) fn(model.probe(h, static_cast<int>(p), d, nic, 49152 + flow, ++id));
        }
      }
    }
  }
}

// The ports the model's probes that arrived left each switch by, per
// destination, `flows` source ports each, both ways. (Where a probe is
// lost, the sender's record keeps no hops: only the arrived ones are
// evidence.)
PortsToward model_paths(const LabFixture& lab, int flows) {
  const FabricIndex& f = *lab.fabric;
  fabricmodel::FabricModel model(f, lab.wiring);
  PortsToward out;
  probe_all(lab, model, flows, [&](const auto& records) {
    for (const auto& o : records) {
      if (!o.received) continue;  // a lost probe's sender records no hops
      for (const auto& hop : o.hops) {
        const int device = f.device_by_node_id(hop.node_id);
        REQUIRE(device >= 0);
        const int port = f.port_by_id(device, hop.egress_if);
        REQUIRE(port >= 0);
        out[{device, o.dst_address}].insert(f.port({device, port}).name);
      }
    }
  });
  return out;
}

// Every hop of the model's is a next hop of the routes', and over the
// flows the model uses all of them.
void check_agreement(const LabFixture& lab) {
  const PortsToward bgp = bgp_routes(lab), model = model_paths(lab, 32);
  REQUIRE(!model.empty());
  for (const auto& [at, ports] : model) {
    INFO(lab.bp().devices[at.first].name << " toward " << at.second);
    const auto it = bgp.find(at);
    REQUIRE(it != bgp.end());
    CHECK(ports == it->second);
  }
}

}  // namespace

TEST_CASE("fabricmodel: on the planned wiring the probes' hashing forwards over exactly the routes' next hops") {
  LabFixture lab;
  check_agreement(lab);
}

TEST_CASE("fabricmodel: with a host cable down or one way broken, the two models still agree") {
  LabFixture lab;
  SECTION("down") { lab.set_fault(lab.cable_from("host-p0-s00-h001", "nic1p1"), "down"); }
  SECTION("drop") { lab.set_fault(lab.cable_from("host-p0-s00-h001", "nic2p1"), "drop-z-a"); }
  SECTION("uplink down") { lab.set_fault(lab.cable_from("tor-p0-s00-r1a", "etp5"), "down"); }
  check_agreement(lab);
}

TEST_CASE("fabricmodel: a dark uplink is routed around, as FRR does, and no probe between sound hosts is lost") {
  // FRR in the lab (this wiring, by hand): tor-p0-s00-r2a's routes to the
  // hosts of tor-p0-s00-r1a leave by etp6..etp8 only, since agg-p0-1-00 lost
  // its session to that ToR and withdrew them. A model hashing every flow
  // over all four uplinks loses a quarter of them at agg-p0-1-00.
  LabFixture lab;
  lab.set_fault(lab.cable_from("tor-p0-s00-r1a", "etp5"), "down");
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  int probes = 0, lost = 0;
  probe_all(lab, model, 8, [&](const auto& records) {
    ++probes;
    if (records.size() != 2 || !records[1].received) ++lost;
  });
  CHECK(probes > 1000);
  CHECK(lost == 0);
}
