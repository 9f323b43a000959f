// Observation header first: it names hpn::Result, which probe/byte_reader.h
// (pulled in by the agent headers) would otherwise shadow inside hpn::probe.
#include "probe/observation.h"

#include "probe/agent_output.h"
#include "probe/agent_trace.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "fake_network.h"
#include "test_util.h"

using namespace hpn::probe;
using hpn::probe::ProbeDirection;

TEST_CASE("agent/trace: hops come out in path order, unavailable fields as -1", "[agent][trace]") {
  auto hbh = testing::filled_trace({{7, 11, 12}, {8, 21, 22}});
  auto hops = observed_hops(hbh, 123);
  REQUIRE(hops);
  REQUIRE(hops->size() == 2);
  CHECK((*hops)[0].node_id == 7);
  CHECK((*hops)[0].ingress_if == 11);
  CHECK((*hops)[0].egress_if == 12);
  CHECK((*hops)[0].hop_limit == 63);
  CHECK((*hops)[1].node_id == 8);
  CHECK((*hops)[1].hop_limit == 62);

  IoamNode blind;  // a node that knows no interface ids
  blind.namespace_id = 123;
  blind.data.node_id = 9;
  blind.data.hop_limit = 40;
  auto one = probe_hop_by_hop(123);
  REQUIRE(*ioam_transit_hbh(one, blind) == IoamTransitOutcome::written);
  auto unavailable = observed_hops(one, 123);
  REQUIRE(unavailable->size() == 1);
  CHECK((*unavailable)[0].node_id == 9);
  CHECK((*unavailable)[0].ingress_if == -1);
  CHECK((*unavailable)[0].egress_if == -1);

  CHECK(observed_hops(probe_hop_by_hop(123), 123)->empty());  // crossed no IOAM node
  CHECK(observed_hops(hbh, 124).error().message == "no pre-allocated IOAM trace of namespace 124");
  CHECK(observed_hops({}, 123).error().message ==
        "no Hop-by-Hop header (a node on the path removed it, or it was never sent)");
  auto cut = hbh;
  cut[1] = std::byte{40};  // header length past the bytes
  CHECK_FALSE(observed_hops(cut, 123));
}

TEST_CASE("agent/output: observations are written whole, replacing the file", "[agent][output]") {
  hpn::test::TempDir dir;
  const auto path = (dir / "obs.jsonl").string();
  hpn::test::write_file(path, "old\n");
  ObservationRecord lost;
  lost.run = "r";
  lost.probe = 3;
  lost.direction = ProbeDirection::forward;
  lost.src_device = "host-a";
  lost.src_port = "etp1a";
  lost.src_address = "2001:db8::1";
  lost.src_udp_port = 49152;
  lost.dst_device = "host-b";
  lost.dst_address = "2001:db8::2";
  lost.dst_udp_port = 17768;
  lost.sent_ns = 5;
  ObservationRecord got = lost;
  got.probe = 4;
  got.received = true;
  got.rx_port = "etp5b";
  got.hops = {{7, 11, 12, 63}};
  got.received_ns = 9;
  REQUIRE(write_observation_file(path, {lost, got}));
  CHECK(hpn::test::read_file(path) ==
        "{\"run\":\"r\",\"probe\":3,\"direction\":\"forward\",\"src\":{\"device\":\"host-a\",\"port\":\"etp1a\","
        "\"address\":\"2001:db8::1\",\"udp_port\":49152},\"dst\":{\"device\":\"host-b\",\"address\":\"2001:db8::2\","
        "\"udp_port\":17768},\"received\":false,\"rx_port\":null,\"hops\":[],\"sent_ns\":5,\"received_ns\":null}\n"
        "{\"run\":\"r\",\"probe\":4,\"direction\":\"forward\",\"src\":{\"device\":\"host-a\",\"port\":\"etp1a\","
        "\"address\":\"2001:db8::1\",\"udp_port\":49152},\"dst\":{\"device\":\"host-b\",\"address\":\"2001:db8::2\","
        "\"udp_port\":17768},\"received\":true,\"rx_port\":\"etp5b\",\"hops\":[{\"node_id\":7,\"ingress_if\":11,"
        "\"egress_if\":12,\"hop_limit\":63}],\"sent_ns\":5,\"received_ns\":9}\n");
  auto back = read_observation_file(path);
  REQUIRE(back);
  CHECK(back->size() == 2);
  // Nothing is left beside it.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
  CHECK_FALSE(write_observation_file((dir / "no-such-dir" / "obs.jsonl").string(), {lost}));
}
