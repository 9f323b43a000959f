// The spec's transport section: defaults, and located errors.
#include "planner/design_check.h"
#include "planner/spec_loader.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;

TEST_CASE("profile/transport-spec: the defaults of examples/hpn-pod.yaml") {
  auto spec = default_spec();
  REQUIRE(spec.ok());
  const TransportSpec& t = spec->transport;
  CHECK(t.mtu == 4200);
  CHECK(t.frontend_mtu == 1500);
  CHECK(t.bond_mode == "balance-xor");
  CHECK(t.arp_interval_ms == 100);
  CHECK(t.miimon_ms == 100);
  CHECK(t.switch_latency_ns == 600);
  CHECK(t.nic_latency_ns == 500);
  CHECK(t.fibre_ns_per_m == 5.0);
  CHECK(t.bdp_headroom == 2.0);
  CHECK(t.qps == 16);
  CHECK(t.max_qps == 128);
  CHECK(t.segment_bytes == 32768);
  CHECK(t.max_segment_bytes == 524288);
  CHECK(t.max_msgs == 128);
  CHECK(t.dqplb_max_hops == 5);
  CHECK(t.ib_timeout == 20);
  CHECK(t.ib_retry_cnt == 7);
  CHECK(t.ib_gid_index == 3);
  CHECK(t.ib_traffic_class == 106);
}

TEST_CASE("profile/transport-spec: a spec without the section keeps the defaults, one key changes one value") {
  auto spec = load_spec("version: 1\ntransport:\n  mtu: 9000\n", "t.yaml");
  REQUIRE(spec.ok());
  CHECK(spec->transport.mtu == 9000);
  CHECK(spec->transport.qps == 16);
  CHECK(load_spec("version: 1\n", "t.yaml")->transport.bond_mode == "balance-xor");
}

TEST_CASE("profile/transport-spec: errors point at the key") {
  auto error = [](const std::string& yaml) {
    auto spec = load_spec(yaml, "t.yaml");
    REQUIRE_FALSE(spec.ok());
    return spec.error().message;
  };
  CHECK(error("version: 1\ntransport:\n  bond_mode: balance-xr\n") ==
        "t.yaml:3:3: transport.bond_mode: 'balance-xr' is not a bond mode RoCE LAG takes; one of "
        "balance-xor, 802.3ad, active-backup (did you mean 'balance-xor'?)\n"
        "  bond_mode: balance-xr\n"
        "  ^\n");
  CHECK(error("version: 1\ntransport:\n  qps: 129\n") ==
        "t.yaml:3:8: transport.qps: 129 is out of range; must be between 1 and 128\n"
        "  qps: 129\n"
        "       ^\n");
  CHECK(error("version: 1\ntransport:\n  qps: 32\n  max_qps: 16\n") ==
        "t.yaml:4:3: transport.max_qps (16) is below transport.qps (32): a ceiling under its floor\n"
        "  max_qps: 16\n"
        "  ^\n");
  CHECK(error("version: 1\ntransport:\n  mtu: 1000\n") ==
        "t.yaml:3:8: transport.mtu: 1000 is out of range; must be between 1280 and 9216\n"
        "  mtu: 1000\n"
        "       ^\n");
  CHECK(error("version: 1\ntransport:\n  switch_latency: 600\n") ==
        "t.yaml:3:3: unknown key 'switch_latency'; did you mean 'switch_latency_ns'?\n"
        "  switch_latency: 600\n"
        "  ^\n");
}

TEST_CASE("profile/transport-spec: 802.3ad with dual_tor is a design error at the bond mode, single-ToR takes it") {
  auto spec = load_spec("version: 1\ntransport:\n  bond_mode: 802.3ad\n", "t.yaml");
  REQUIRE(spec.ok());
  auto st = check_design(spec.value());
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message ==
        "t.yaml:3:3: transport.bond_mode 802.3ad cannot aggregate toward two independent ToRs (segment.dual_tor): "
        "each port of a NIC sees a different LACP partner, so the bond runs on one port; use balance-xor, "
        "or active-backup with ARP monitoring toward both gateways\n"
        "  bond_mode: 802.3ad\n"
        "  ^\n");
  std::string single = hpn::test::read_file(hpn::test::source_path("examples/baseline-single-tor.yaml")) + "\ntransport:\n  bond_mode: 802.3ad\n";
  auto one_tor = load_spec(single, "single.yaml");
  REQUIRE(one_tor.ok());
  CHECK(check_design(one_tor.value()).ok());
  auto xor_ = load_spec("version: 1\ntransport:\n  bond_mode: active-backup\n", "t.yaml");
  CHECK(check_design(xor_.value()).ok());
}

}  // namespace

namespace {

// The pod spec's JSON Schema knows the section as the loader does: checked
// with the schema tests' own validator (tests/schema/validate_examples.py).
TEST_CASE("profile/transport-spec: schemas/hpn-pod.schema.json takes the section and its limits") {
  using namespace hpn::test;
  TempDir dir;
  write_file(dir / "ok.yaml", "version: 1\ntransport:\n  bond_mode: active-backup\n  qps: 128\n  bdp_headroom: 1.5\n");
  write_file(dir / "qps.yaml", "# expect-error: $.transport.qps\nversion: 1\ntransport:\n  qps: 129\n");
  write_file(dir / "mode.yaml", "# expect-error: $.transport.bond_mode\nversion: 1\ntransport:\n  bond_mode: lacp\n");
  write_file(dir / "key.yaml", "# expect-error: $.transport\nversion: 1\ntransport:\n  switch_latency: 600\n");
  std::string base = std::string(HPN_SCHEMA_PYTHON) + " '" + source_path("tests/schema/validate_examples.py").string() +
                     "' '" + source_path("schemas/hpn-pod.schema.json").string() + "' ";
  auto status = [](const std::string& cmd) {
    int s = std::system((cmd + " >/dev/null 2>&1").c_str());
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  };
  fs::create_directories(dir / "valid");
  fs::rename(dir / "ok.yaml", dir / "valid" / "ok.yaml");
  CHECK(status(base + "'" + (dir / "valid").string() + "'") == 0);
  CHECK(status(base + "--expect-invalid '" + (dir / "qps.yaml").string() + "' '" + (dir / "mode.yaml").string() +
               "' '" + (dir / "key.yaml").string() + "'") == 0);
}

}  // namespace
