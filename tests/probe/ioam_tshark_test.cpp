// An independent decoder: write a probe with a filled IOAM trace to a pcap
// (open it in Wireshark too) and check that tshark's IOAM dissector reads the
// same node and interface IDs as decode_ioam_ipv6().
#include <pcap/pcap.h>

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ipv6_packet.h"
#include "probe/ioam_trace.h"
#include "test_util.h"

using namespace hpn::probe;

namespace {

std::vector<std::byte> ethernet_frame(std::span<const std::byte> ipv6) {
  ByteWriter w;
  w.bytes(to_bytes({0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01})).be16(0x86DD).bytes(ipv6);
  return std::move(w).take();
}

void write_pcap(const std::string& path, std::span<const std::byte> frame) {
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
  REQUIRE(dead != nullptr);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  REQUIRE(dumper != nullptr);
  pcap_pkthdr header{};
  header.ts.tv_sec = 1700000000;
  header.caplen = header.len = static_cast<bpf_u_int32>(frame.size());
  // libpcap's C API takes the dumper and the frame as u_char pointers.
  pcap_dump(reinterpret_cast<u_char*>(dumper), &header,
            reinterpret_cast<const u_char*>(frame.data()));
  pcap_dump_close(dumper);
  pcap_close(dead);
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) out += buf.data();
  pclose(pipe);
  return out;
}

// tshark -T fields: one column per field, occurrences joined by ',', and
// these fields printed in hex ("0x0003e9").
std::vector<std::vector<unsigned long>> parse_columns(const std::string& line) {
  std::vector<std::vector<unsigned long>> columns(1);
  std::string value;
  auto flush = [&] {
    if (!value.empty()) columns.back().push_back(std::stoul(value, nullptr, 0));
    value.clear();
  };
  for (char c : line) {
    if (c == '\t') {
      flush();
      columns.emplace_back();
    } else if (c == ',') {
      flush();
    } else if (c != '\n') {
      value += c;
    }
  }
  flush();
  return columns;
}

}  // namespace

TEST_CASE("probe/ioam: tshark reads the same IOAM hops as the decoder", "[probe][ioam][tshark]") {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
    hpn::test::skip("tshark not installed");
  }
  IoamTraceRequest req;
  req.namespace_id = 123;
  req.hops = 3;
  auto packet = testing::ipv6_udp_packet(build_ioam_hbh(req).value(), to_bytes({'h', 'p', 'n'}));
  const std::uint32_t ids[] = {1001, 2002, 3003};
  for (std::uint32_t i = 0; i < 3; ++i) {
    IoamNode n;
    n.namespace_id = 123;
    n.data.node_id = ids[i];
    n.data.ingress_if = static_cast<std::uint16_t>(10 + i);
    n.data.egress_if = static_cast<std::uint16_t>(20 + i);
    REQUIRE(*ioam_transit_ipv6(packet, n) == IoamTransitOutcome::written);
  }
  auto traces = decode_ioam_ipv6(packet);
  REQUIRE(traces);
  auto hops = traces->front().hops;
  REQUIRE(hops.size() == 3);
  CHECK(hops[0].node_id->value == 1001);
  CHECK(hops[2].node_id->value == 3003);

  const std::string path = "ioam_3hops.pcap";  // left in the test directory for Wireshark
  write_pcap(path, ethernet_frame(packet));
  const auto out = run("tshark -r " + path +
                       " -T fields -e ipv6.opt.ioam.trace.node.id"
                       " -e ipv6.opt.ioam.trace.node.iif -e ipv6.opt.ioam.trace.node.eif"
                       " 2>/dev/null");
  INFO("tshark printed: " << out);
  // tshark lists records in wire order, newest first: the reverse of path order.
  std::vector<std::vector<unsigned long>> expected(3);
  for (auto h = hops.rbegin(); h != hops.rend(); ++h) {
    expected[0].push_back(h->node_id->value);
    expected[1].push_back(h->ingress_if->value);
    expected[2].push_back(h->egress_if->value);
  }
  CHECK(parse_columns(out) == expected);
}
