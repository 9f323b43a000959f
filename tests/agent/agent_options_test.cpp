#include "probe/agent_options.h"

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace hpn::probe;

TEST_CASE("agent/options: --port-name maps interfaces to blueprint ports, one to one", "[agent][options]") {
  PortNames names;
  REQUIRE(parse_port_names("a0=etp1a,a1=etp1b", names));
  CHECK(names.port_of("a0") == "etp1a");
  CHECK(names.port_of("a1") == "etp1b");
  CHECK(names.port_of("eth9") == "eth9");  // unmapped: its own name
  CHECK(names.interface_of("etp1b") == "a1");
  CHECK_FALSE(names.interface_of("a1"));
  CHECK(parse_port_names("a0=etp2a", names).error().message == "interface a0 is mapped twice (etp1a and etp2a)");
  CHECK(parse_port_names("a2=etp1a", names).error().message ==
        "port etp1a is mapped from two interfaces (a0 and a2)");
  CHECK(parse_port_names("a3", names).error().message == "'a3': expected IFNAME=PORTNAME");
  CHECK(parse_port_names("=x", names).error().message == "'=x': expected IFNAME=PORTNAME");
  PortNames empty;
  CHECK(parse_port_names("", empty));
  CHECK(empty.empty());
}

TEST_CASE("agent/options: --ports-from reads this host's entry of a lab status file", "[agent][options]") {
  const std::string status = R"({"lab": "3fa2", "devices": [
      {"name": "host-s00-h00", "role": "host", "ports": [
         {"port": "etp1a", "port_id": 1, "ifname": "etp1a"},
         {"port": "a-very-long-port-name", "port_id": 2, "ifname": "p2"}]},
      {"name": "host-s00-h01", "ports": [{"port": "etp1a", "ifname": "x1"}]}]})";
  PortNames names;
  REQUIRE(port_names_from_status(status, "host-s00-h00", "status.json", names));
  CHECK(names.port_of("p2") == "a-very-long-port-name");
  CHECK(names.port_of("etp1a") == "etp1a");
  CHECK(names.interface_of("a-very-long-port-name") == "p2");

  PortNames other;
  CHECK(port_names_from_status(status, "host-s09-h00", "status.json", other).error().message ==
        "status.json: no device named 'host-s09-h00' (see --device-name)");
  CHECK(port_names_from_status("[1, 2", "h", "s.json", other).error().message == "s.json: not a JSON object");
  CHECK(port_names_from_status(R"({"devices": 3})", "h", "s.json", other).error().message ==
        "s.json: no \"devices\" list");
  CHECK(port_names_from_status(R"({"devices": [{"name": "h", "ports": [{"port": 1, "ifname": "a"}]}]})", "h",
                               "s.json", other)
            .error()
            .message == "s.json: a port of h lacks \"port\" or \"ifname\" text");

  hpn::test::TempDir dir;
  hpn::test::write_file(dir / "status.json", status);
  PortNames from_file;
  REQUIRE(read_port_names_file((dir / "status.json").string(), "host-s00-h01", from_file));
  CHECK(from_file.port_of("x1") == "etp1a");
  CHECK_FALSE(read_port_names_file((dir / "missing.json").string(), "h", from_file));
}

TEST_CASE("agent/options: --to takes HOST=ADDRESS pairs, addresses canonical", "[agent][options]") {
  auto d = parse_destinations("host-b=2001:DB8:0::0:2,host-c=fd48:504e::10");
  REQUIRE(d);
  CHECK(d.value() == std::vector<Destination>{{"host-b", "2001:db8::2"}, {"host-c", "fd48:504e::10"}});
  CHECK(parse_destinations("host-b=10.0.0.1").error().message == "'host-b=10.0.0.1': '10.0.0.1' is not an IPv6 address");
  CHECK(parse_destinations("b=2001:db8::2,c=2001:db8:0::2").error().message ==
        "'c=2001:db8:0::2': address 2001:db8::2 is listed twice");
  CHECK(parse_destinations("2001:db8::2").error().message == "'2001:db8::2': expected HOST=ADDRESS");
  CHECK(parse_destinations(",").error().message == "no destination given");
}

TEST_CASE("agent/options: --source-ports is a port or a range", "[agent][options]") {
  CHECK(parse_port_range("49152-49167").value() == PortRange{49152, 49167});
  CHECK(parse_port_range("49152-49167")->size() == 16);
  CHECK(parse_port_range("5000").value() == PortRange{5000, 5000});
  CHECK(parse_port_range("2-1").error().message == "'2-1': the range ends before it starts");
  for (const char* bad : {"", "-", "0-5", "1-65536", "a-b", "1-2-3", "10 -20", "+5"}) {
    INFO(bad);
    CHECK_FALSE(parse_port_range(bad));
  }
  CHECK(split_list("a,,b,") == std::vector<std::string>{"a", "b"});
  CHECK(split_list("").empty());
}

TEST_CASE("agent/options: a send plan file, its ports and destinations in order, errors by line", "[agent][options]") {
  hpn::test::TempDir dir;
  const auto path = (dir / "plan.jsonl").string();
  hpn::test::write_file(path,
                        "{\"entry\": 3, \"from\": \"nic1p1\", \"to\": \"host-b=fd48:504e::30\", \"source_ports\": [49152, 49153]}\n"
                        "\n"
                        "{\"entry\": 4, \"from\": \"nic1p2\", \"to\": \"agg-p0-1-00=fd48:5050::1@64\", \"source_ports\": [49154]}\n"
                        "{\"entry\": 5, \"from\": \"nic1p1\", \"to\": \"host-b=fd48:504e::30\", \"source_ports\": [49155]}\n");
  auto plan = read_send_plan(path);
  REQUIRE(plan);
  CHECK(plan->from == std::vector<std::string>{"nic1p1", "nic1p2"});
  REQUIRE(plan->to.size() == 2);
  CHECK(plan->to[1].device == "agg-p0-1-00");
  CHECK(plan->to[1].hop_limit == 64);
  REQUIRE(plan->probes.size() == 4);
  CHECK(plan->probes[0].source_port == 49152);
  CHECK(plan->probes[2].from == 1);
  CHECK(plan->probes[2].entry == 4);
  CHECK(plan->probes[3].to == 0);
  auto error_of = [&](const std::string& text) {
    hpn::test::write_file(path, text);
    auto r = read_send_plan(path);
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK(error_of("{\"entry\": 1, \"from\": \"a\", \"to\": \"b=fd00::1\", \"source_ports\": [1]}\nnot json\n") ==
        path + ":2: not a JSON object");
  CHECK(error_of("{\"entry\": -1, \"from\": \"a\", \"to\": \"b=fd00::1\", \"source_ports\": [1]}\n") ==
        path + ":1: 'entry' must be an integer of 0 or more");
  CHECK(error_of("{\"entry\": 1, \"from\": \"a\", \"to\": \"b=fd00::1\", \"source_ports\": [0]}\n") ==
        path + ":1: 'source_ports' must be UDP ports, 1 to 65535");
  CHECK(error_of("{\"entry\": 1, \"from\": \"a\", \"to\": \"b=fd00::1\", \"source_ports\": [1], \"x\": 2}\n") ==
        path + ":1: unknown key 'x'");
  CHECK(error_of("\n") == path + ": no probe in the plan file");
  CHECK(read_send_plan(dir.path().string()).error().message == dir.path().string() + ": is a directory, not a send plan");
}
