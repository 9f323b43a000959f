// The store round trip: what the planner wrote is what readers get back.
#include <catch2/catch.hpp>

#include "blueprint/store.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"
#include "test_util.h"

using namespace hpn;

namespace {

Plan lab_plan() {
  auto spec = load_spec_file(test::source_path("examples/lab-pod.yaml").string());
  REQUIRE(spec.ok());
  auto plan = make_plan(std::move(spec.value()), "test");
  REQUIRE(plan.ok());
  return std::move(plan.value());
}

}  // namespace

TEST_CASE("blueprint/store: load() gives back the blueprint that was written") {
  test::TempDir dir;
  Plan plan = lab_plan();
  REQUIRE(write_plan(plan.blueprint, plan.summary, (dir / "plan").string()).ok());
  auto store = BlueprintStore::open((dir / "plan").string());
  REQUIRE(store.ok());
  auto loaded = store->load();
  REQUIRE(loaded.ok());
  const Blueprint& a = plan.blueprint;
  const Blueprint& b = loaded.value();
  CHECK(b.spec_yaml == a.spec_yaml);
  REQUIRE(b.devices.size() == a.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    CHECK(b.devices[i].name == a.devices[i].name);
    CHECK(b.devices[i].node_id == a.devices[i].node_id);
    CHECK(b.devices[i].plane == a.devices[i].plane);
    CHECK(b.racks[b.devices[i].rack].name == a.racks[a.devices[i].rack].name);
    const auto& pa = a.panels[a.devices[i].panel].ports;
    const auto& pb = b.panels[b.devices[i].panel].ports;
    REQUIRE(pa.size() == pb.size());
    for (size_t k = 0; k < pa.size(); ++k) {
      CHECK(pb[k].name == pa[k].name);
      CHECK(pb[k].port_id == pa[k].port_id);
      CHECK(pb[k].breakout_of == pa[k].breakout_of);
      CHECK(pb[k].use == pa[k].use);
    }
  }
  REQUIRE(b.cables.size() == a.cables.size());
  for (size_t i = 0; i < a.cables.size(); ++i) {
    CHECK(b.cables[i].id == a.cables[i].id);
    CHECK(b.cables[i].a_device == a.cables[i].a_device);
    CHECK(b.cables[i].z_port == a.cables[i].z_port);
    CHECK(b.cables[i].state == a.cables[i].state);
    CHECK(b.cables[i].length_m == a.cables[i].length_m);
    CHECK(b.cables[i].stock_length_m == a.cables[i].stock_length_m);
  }
  CHECK(b.core_rules.size() == a.core_rules.size());
  CHECK(b.interfaces.size() == a.interfaces.size());
  REQUIRE(b.links.size() == a.links.size());
  CHECK(b.links.back().z_ipv6 == a.links.back().z_ipv6);
}

TEST_CASE("blueprint/store: queries filter devices and find a port's cable from either end") {
  test::TempDir dir;
  Plan plan = lab_plan();
  REQUIRE(write_plan(plan.blueprint, plan.summary, (dir / "plan").string()).ok());
  auto store = BlueprintStore::open((dir / "plan").string());
  REQUIRE(store.ok());
  DeviceFilter f;
  f.role = "tor";
  f.plane = 2;
  auto tors = store->devices(f);
  REQUIRE(tors.ok());
  CHECK(tors->size() == 4);  // 2 segments x 2 rails
  for (const auto& t : tors.value()) CHECK(t.name.back() == 'b');
  auto from_tor = store->cables_of("tor-p0-s00-r1a", std::string("etp1a"));
  REQUIRE(from_tor.ok());
  REQUIRE(from_tor->size() == 1);
  CHECK(from_tor->at(0).a_device == "host-p0-s00-h000");
  CHECK(from_tor->at(0).a_port == "nic1p1");
  CHECK(from_tor->at(0).label_z == "C0H00001 tor-p0-s00-r1a:etp1a > host-p0-s00-h000:nic1p1 H0-R00-00 U1");
  auto has = store->has_port("tor-p0-s00-r1a", "etp16");
  REQUIRE(has.ok());
  CHECK(has.value());
  CHECK_FALSE(store->has_port("tor-p0-s00-r1a", "etp17").value());
}
