// The pull list's model: which end a cable is seen from and the order a rack
// is worked in, apart from any plan (the CLI tests check it on real plans).
#include <catch2/catch.hpp>

#include "blueprint/pull_list.h"

using namespace hpn;

namespace {

CableRow row(std::string id, std::string a_rack, int a_ru, std::string a_dev, std::string a_port,
             std::string z_rack, int z_ru, std::string z_dev, std::string z_port) {
  CableRow c;
  c.cable_id = std::move(id);
  c.a_rack = std::move(a_rack);
  c.a_ru = a_ru;
  c.a_device = std::move(a_dev);
  c.a_port = std::move(a_port);
  c.z_rack = std::move(z_rack);
  c.z_ru = z_ru;
  c.z_device = std::move(z_dev);
  c.z_port = std::move(z_port);
  c.label_a = c.cable_id + " at a";
  c.label_z = c.cable_id + " at z";
  return c;
}

std::vector<std::string> ids(const std::vector<PullEntry>& list) {
  std::vector<std::string> out;
  for (const auto& e : list) out.push_back(e.cable.cable_id);
  return out;
}

}  // namespace

TEST_CASE("blueprint/pull_list: ports and names with numbers sort as a technician counts") {
  CHECK(natural_less("etp2a", "etp10a"));
  CHECK_FALSE(natural_less("etp10a", "etp2a"));
  CHECK(natural_less("etp1a", "etp1b"));
  CHECK(natural_less("nic1p2", "nic2p1"));
  CHECK(natural_less("etp9", "etp9a"));
  CHECK_FALSE(natural_less("etp9", "etp9"));
  // Leading zeros do not change the number, and the order stays total.
  CHECK(natural_less("h7", "h010"));
  CHECK(natural_less("h1", "h01"));
  CHECK_FALSE(natural_less("h01", "h1"));
}

TEST_CASE("blueprint/pull_list: seen from the rack asked for, worked unit by unit") {
  // Floor order is not name order: R-B stands before R-A.
  const std::vector<Rack> floor{{"R-B", 0, 0, 0, "hosts"}, {"R-A", 0, 0, 1, "network"}, {"R-C", 0, 1, 0, "agg"}};
  std::vector<CableRow> cables{
      row("C1", "R-B", 5, "h1", "nic1p1", "R-A", 40, "tor1", "etp10a"),
      row("C2", "R-B", 3, "h0", "nic1p1", "R-A", 40, "tor1", "etp2a"),
      row("C3", "R-A", 40, "tor1", "etp60", "R-C", 1, "agg1", "etp1"),
      row("C4", "R-A", 38, "tor0", "etp1a", "R-A", 40, "tor1", "etp1a"),  // both ends in R-A
  };
  SECTION("in R-A, the end there first; a cable inside the rack once, from its a-end") {
    auto list = pull_list(cables, floor, std::string("R-A"));
    CHECK(ids(list) == std::vector<std::string>{"C4", "C2", "C1", "C3"});
    REQUIRE(list.size() == 4);
    CHECK(list[1].near().device == "tor1");
    CHECK(list[1].near().port == "etp2a");
    CHECK(list[1].near().label == "C2 at z");
    CHECK(list[1].far().rack == "R-B");
    CHECK(list[1].far().ru == 3);
    CHECK(list[1].far().label == "C2 at a");
    CHECK_FALSE(list[1].near_is_a);
    CHECK(list[0].near_is_a);  // C4: a-end at U38
    CHECK(list[3].near_is_a);  // C3: the ToR is its a-end
  }
  SECTION("without a rack, from the a-ends, racks in floor order") {
    auto list = pull_list(cables, floor, std::nullopt);
    CHECK(ids(list) == std::vector<std::string>{"C2", "C1", "C4", "C3"});
    for (const auto& e : list) CHECK(e.near_is_a);
  }
}

TEST_CASE("blueprint/pull_list: devices by rack in floor order, then unit") {
  const std::vector<Rack> floor{{"R-B", 0, 0, 0, "hosts"}, {"R-A", 0, 0, 1, "network"}};
  std::vector<DeviceRow> devices(4);
  devices[0].name = "tor1", devices[0].rack = "R-A", devices[0].ru = 40;
  devices[1].name = "tor0", devices[1].rack = "R-A", devices[1].ru = 38;
  devices[2].name = "h10", devices[2].rack = "R-B", devices[2].ru = 2;
  devices[3].name = "h9", devices[3].rack = "R-B", devices[3].ru = 2;
  sort_by_place(devices, floor);
  std::vector<std::string> names;
  for (const auto& d : devices) names.push_back(d.name);
  CHECK(names == std::vector<std::string>{"h9", "h10", "tor0", "tor1"});
}
