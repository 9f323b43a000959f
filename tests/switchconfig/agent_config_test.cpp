// The host-route agent's configuration (switchconfig/agent_config.h): what
// `config --all` writes for a ToR, read back; every refusal of the reader,
// message for message; the prefix test that decides which hosts are
// refused; and the schema naming the same keys as the reader.
#include <arpa/inet.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

#include "planner/plan_fixture.h"
#include "switchconfig/agent_config.h"
#include "test_util.h"

using namespace hpn;
using namespace hpn::switchconfig;

namespace {

const Blueprint& agent_lab_pod() {
  static const Plan plan = test::plan_of_file("examples/lab-pod.yaml");
  return plan.blueprint;
}

int agent_device(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

const char* const kGoodAgentConfig = R"({
  "format": "hpnctl-switch-agent", "format_version": 1, "switch": "tor-a",
  "ports": ["etp1a", "etp2"], "prefixes": ["10.0.0.0/12", "fd48:504e::/40"],
  "table": 254, "protocol": 80
})";

// kGoodAgentConfig with `key` set to `value` (JSON text), or removed when `value` is empty.
std::string with_key(const std::string& key, const std::string& value) {
  auto j = nlohmann::ordered_json::parse(kGoodAgentConfig);
  if (value.empty()) {
    j.erase(key);
  } else {
    j[key] = nlohmann::ordered_json::parse(value);
  }
  return j.dump();
}

std::string agent_error_of(const std::string& text) {
  auto r = read_agent_config(text, "a.json");
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

bool in_prefix(const std::string& prefix, const std::string& address) {
  auto p = parse_host_prefix(prefix);
  REQUIRE(p);
  std::uint8_t bytes[16] = {};
  const int family = address.find(':') == std::string::npos ? AF_INET : AF_INET6;
  REQUIRE(inet_pton(family, address.c_str(), bytes) == 1);
  return p->contains(family, bytes);
}

}  // namespace

TEST_CASE("agent config: a ToR's host-facing ports and its gateway's pools, written and read back",
          "[switchconfig][agent]") {
  const Blueprint& bp = agent_lab_pod();
  auto builder = ConfigBuilder::create(bp);
  REQUIRE(builder);
  const int tor = agent_device(bp, "tor-p0-s00-r1a");
  const SwitchConfig c = builder->build(tor);
  // The expectation from the cables: the ToR's ports whose far end is a host.
  std::set<std::string> host_ports;
  for (const auto& k : bp.cables) {
    if (k.a_device == tor && bp.devices[k.z_device].role == Role::host) host_ports.insert(k.a_port);
    if (k.z_device == tor && bp.devices[k.a_device].role == Role::host) host_ports.insert(k.z_port);
  }
  REQUIRE_FALSE(host_ports.empty());
  auto made = agent_config(c);
  REQUIRE(made);
  std::set<std::string> ifnames;
  for (const auto& p : c.ports) {
    if (host_ports.count(p.name)) ifnames.insert(p.ifname);
  }
  CHECK(std::set<std::string>(made->ports.begin(), made->ports.end()) == ifnames);
  CHECK(made->ports.size() == ifnames.size());
  REQUIRE(made->prefixes.size() == 2);
  CHECK(made->prefixes[0].text == c.gateway.pool4);
  CHECK(made->prefixes[1].text == c.gateway.pool6);
  CHECK(made->table == 254);
  CHECK(made->protocol == 80);

  const std::string text = write_agent_config(made.value());
  auto back = read_agent_config(text, "switch-agent.json");
  REQUIRE(back);
  CHECK(back->switch_name == "tor-p0-s00-r1a");
  CHECK(back->ports == made->ports);
  CHECK(back->prefixes.size() == 2);
  CHECK(back->prefixes[1].text == c.gateway.pool6);
  CHECK(write_agent_config(back.value()) == text);

  // An aggregation switch learns no hosts: it has no agent.
  auto agg = agent_config(builder->build(agent_device(bp, "agg-p0-1-00")));
  REQUIRE_FALSE(agg);
  CHECK(agg.error().message == "agg-p0-1-00 has no gateway: it learns no hosts");
}

TEST_CASE("agent config: every bad file is refused, naming the file and the key", "[switchconfig][agent]") {
  REQUIRE(read_agent_config(kGoodAgentConfig, "a.json"));
  CHECK(agent_error_of("{") == "a.json: not JSON (byte 2)");
  CHECK(agent_error_of("[]") == "a.json: not a JSON object");
  CHECK(agent_error_of(with_key("tables", "254")) == "a.json: unknown key 'tables'; did you mean 'table'?");
  CHECK(agent_error_of(with_key("table", "")) == "a.json: key 'table': missing");
  CHECK(agent_error_of(with_key("format", "\"hpnctl-config-set\"")) == "a.json: key 'format': must be \"hpnctl-switch-agent\"");
  CHECK(agent_error_of(with_key("format_version", "2")) == "a.json: key 'format_version': this hpnctl reads version 1");
  CHECK(agent_error_of(with_key("switch", "\"\"")) == "a.json: key 'switch': must be a name");
  CHECK(agent_error_of(with_key("ports", "\"etp1\"")) == "a.json: key 'ports': must be a list of interface names");
  CHECK(agent_error_of(with_key("ports", R"(["etp1", "etp1"])")) == "a.json: key 'ports': 'etp1' is listed twice");
  CHECK(agent_error_of(with_key("ports", R"(["a-name-of-16-byt"])")) ==
        "a.json: key 'ports': \"a-name-of-16-byt\" is not a Linux interface name (1 to 15 bytes, no '/', ':' or space)");
  CHECK(agent_error_of(with_key("ports", R"(["eth0/1"])")) ==
        "a.json: key 'ports': \"eth0/1\" is not a Linux interface name (1 to 15 bytes, no '/', ':' or space)");
  CHECK(agent_error_of(with_key("prefixes", "[]")) ==
        "a.json: key 'prefixes': must be a non-empty list: a host outside every prefix is refused");
  CHECK(agent_error_of(with_key("prefixes", R"(["10.0.0.1/12"])")) ==
        "a.json: key 'prefixes': '10.0.0.1/12' is not a prefix: bits set past the length");
  CHECK(agent_error_of(with_key("prefixes", R"(["10.0.0.0/33"])")) ==
        "a.json: key 'prefixes': '10.0.0.0/33' is not a prefix: the length must be 0 to 32");
  CHECK(agent_error_of(with_key("prefixes", R"(["fd48::/129"])")) ==
        "a.json: key 'prefixes': 'fd48::/129' is not a prefix: the length must be 0 to 128");
  CHECK(agent_error_of(with_key("prefixes", R"(["fd48::/4x"])")) ==
        "a.json: key 'prefixes': 'fd48::/4x' is not a prefix: the length must be 0 to 128");
  CHECK(agent_error_of(with_key("prefixes", R"(["10.0.0.0"])")) == "a.json: key 'prefixes': '10.0.0.0' is not a prefix: no /length");
  CHECK(agent_error_of(with_key("prefixes", R"(["10.0.0/8"])")) ==
        "a.json: key 'prefixes': '10.0.0/8' is not a prefix: not an IPv4 or IPv6 address");
  CHECK(agent_error_of(with_key("prefixes", "[8]")) == "a.json: key 'prefixes': 8 is not a prefix");
  for (const char* table : {"0", "253", "255", "4294967296", "\"254\"", "254.5"}) {
    INFO(table);
    CHECK(agent_error_of(with_key("table", table)) ==
          fmt::format("a.json: key 'table': {} is not a routing table (1 to 4294967295, not 253 or 255)", table));
  }
  for (const char* protocol : {"0", "4", "256", "\"80\""}) {
    INFO(protocol);
    CHECK(agent_error_of(with_key("protocol", protocol)) ==
          fmt::format("a.json: key 'protocol': {} is not a routing protocol number the agent may own (5 to 255)",
                      protocol));
  }
  auto big = read_agent_config(with_key("table", "4294967295"), "a.json");
  REQUIRE(big);
  CHECK(big->table == 4294967295u);
}

TEST_CASE("agent config: a host is accepted only inside a prefix of its own family", "[switchconfig][agent]") {
  CHECK(in_prefix("10.0.0.0/12", "10.0.0.5"));
  CHECK(in_prefix("10.0.0.0/12", "10.15.255.255"));
  CHECK_FALSE(in_prefix("10.0.0.0/12", "10.16.0.0"));
  CHECK_FALSE(in_prefix("10.0.0.0/12", "192.168.0.1"));
  CHECK(in_prefix("fd48:504e::/40", "fd48:504e:ff::1"));
  CHECK_FALSE(in_prefix("fd48:504e::/40", "fd48:504f::1"));
  CHECK_FALSE(in_prefix("fd48:504e::/40", "fe80::1"));
  CHECK(in_prefix("0.0.0.0/0", "1.2.3.4"));
  // An IPv4 address never matches an IPv6 prefix, whatever its bytes.
  auto v6 = parse_host_prefix("::/0");
  REQUIRE(v6);
  const std::uint8_t v4[4] = {10, 0, 0, 5};
  CHECK_FALSE(v6->contains(AF_INET, v4));
}

TEST_CASE("agent config: the schema names exactly the keys the reader and writer use", "[switchconfig][agent]") {
  const auto schema = nlohmann::json::parse(test::read_file(test::source_path("schemas/switch-agent.schema.json")));
  std::set<std::string> properties, required;
  for (const auto& [key, value] : schema.at("properties").items()) properties.insert(key);
  for (const auto& key : schema.at("required")) required.insert(key.get<std::string>());
  const std::set<std::string> keys(kAgentConfigKeys.begin(), kAgentConfigKeys.end());
  CHECK(properties == keys);
  CHECK(required == keys);
  CHECK(schema.at("additionalProperties") == false);
  CHECK(schema.at("properties").at("format").at("const") == kAgentConfigFormat);
  CHECK(schema.at("properties").at("format_version").at("const") == kAgentConfigVersion);
  // What the writer writes has those keys, in that order.
  AgentConfig a;
  a.switch_name = "tor-a";
  a.ports = {"etp1"};
  a.prefixes = {parse_host_prefix("10.0.0.0/12").value()};
  const auto written = nlohmann::ordered_json::parse(write_agent_config(a));
  std::vector<std::string> order;
  for (const auto& [key, value] : written.items()) order.push_back(key);
  CHECK(order == std::vector<std::string>(kAgentConfigKeys.begin(), kAgentConfigKeys.end()));
}
