// Where the probe key may come from (probe/probe_key.h): a file only its
// owner can read, or the environment; never the command line.
#include "probe/probe_key.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "test_util.h"

using namespace hpn::probe;
namespace fs = std::filesystem;

namespace {

const std::string kHex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

fs::path key_file(const hpn::test::TempDir& dir, const std::string& text, mode_t mode) {
  const fs::path p = dir / "probe.key";
  hpn::test::write_file(p, text);
  REQUIRE(chmod(p.c_str(), mode) == 0);
  return p;
}

}  // namespace

TEST_CASE("agent/key: hex text of 16 to 64 bytes is a key, anything else is refused without quoting it",
          "[agent][key]") {
  auto key = parse_probe_key("  " + kHex + "\n", "test");
  REQUIRE(key);
  CHECK(key->bytes.size() == 32);
  CHECK(key->bytes[1] == std::byte{0x11});
  CHECK(key->bytes[31] == std::byte{0xff});
  auto odd = parse_probe_key(kHex.substr(1), "test");
  REQUIRE_FALSE(odd);
  CHECK(odd.error().message == "test: a probe key is 32 to 128 hex digits (an even number), not 63");
  auto short_key = parse_probe_key(kHex.substr(0, 30), "test");
  REQUIRE_FALSE(short_key);
  CHECK(short_key.error().message == "test: a probe key is 32 to 128 hex digits (an even number), not 30");
  auto not_hex = parse_probe_key("zz" + kHex.substr(2), "test");
  REQUIRE_FALSE(not_hex);
  CHECK(not_hex.error().message == "test: a probe key is hex digits only; character 1 is not one");
  CHECK_FALSE(parse_probe_key(kHex + kHex + "00", "test"));
}

TEST_CASE("agent/key: a key file must be a regular file no one else can read or write", "[agent][key]") {
  hpn::test::TempDir dir;
  SECTION("0600 and 0400 are fine") {
    for (mode_t mode : {0600, 0400}) {
      auto key = read_probe_key_file(key_file(dir, kHex + "\n", mode).string());
      REQUIRE(key);
      CHECK(key->bytes.size() == 32);
    }
  }
  SECTION("group- or world-readable or -writable is refused") {
    for (mode_t mode : {0640, 0604, 0644, 0620, 0602}) {
      const auto p = key_file(dir, kHex, mode);
      auto key = read_probe_key_file(p.string());
      REQUIRE_FALSE(key);
      INFO(fmt::format("{:04o}", mode));
      const std::string verb = (mode & 044) != 0 ? "read" : "replace";
      CHECK(key.error().message == fmt::format("--key-file {0}: mode {1:04o} lets other users {2} the probe key; "
                                               "chmod 600 {0}",
                                               p.string(), mode, verb));
    }
  }
  SECTION("a directory, a symbolic link, a missing file") {
    auto d = read_probe_key_file(dir.path().string());
    REQUIRE_FALSE(d);
    CHECK(d.error().message == "--key-file " + dir.path().string() + ": not a regular file");
    const auto target = key_file(dir, kHex, 0600);
    fs::create_symlink(target, dir / "link.key");
    auto link = read_probe_key_file((dir / "link.key").string());
    REQUIRE_FALSE(link);
    CHECK(link.error().message.find("a symbolic link is not followed") != std::string::npos);
    CHECK_FALSE(read_probe_key_file((dir / "none.key").string()));
  }
}

TEST_CASE("agent/key: the environment's key is taken and scrubbed, two sources or none are refused",
          "[agent][key]") {
  hpn::test::TempDir dir;
  REQUIRE(setenv(kProbeKeyVariable, kHex.c_str(), 1) == 0);
  const char* text = std::getenv(kProbeKeyVariable);
  REQUIRE(text != nullptr);
  auto both = load_probe_key(key_file(dir, kHex, 0600).string());
  REQUIRE_FALSE(both);
  CHECK(both.error().message == "the probe key is given twice (--key-file and HPNCTL_PROBE_KEY); give it one way");
  auto key = load_probe_key("");
  REQUIRE(key);
  CHECK(key->bytes.size() == 32);
  CHECK(std::getenv(kProbeKeyVariable) == nullptr);
  auto none = load_probe_key("");
  REQUIRE_FALSE(none);
  CHECK(none.error().message.rfind("no probe key: give --key-file FILE (mode 0600) or the HPNCTL_PROBE_KEY", 0) == 0);
}

TEST_CASE("agent/key: hpnctl probe key writes a fresh 0600 key the agent accepts", "[agent][key]") {
  hpn::test::TempDir dir;
  auto made = hpn::test::run_hpnctl("probe key -o probe.key", dir.path());
  REQUIRE(made.exit_code == 0);
  struct stat st {};
  REQUIRE(stat((dir / "probe.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  auto key = read_probe_key_file((dir / "probe.key").string());
  REQUIRE(key);
  CHECK(key->bytes.size() == kGeneratedProbeKeyBytes);
  REQUIRE(hpn::test::run_hpnctl("probe key -o other.key", dir.path()).exit_code == 0);
  CHECK(hpn::test::read_file(dir / "other.key") != hpn::test::read_file(dir / "probe.key"));
  CHECK(fs::directory_iterator(dir.path()) != fs::directory_iterator());
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);  // no temporary left behind
}

TEST_CASE("agent/key: the command line takes no key, and a bad key file stops the agent with exit 2",
          "[agent][key]") {
  hpn::test::TempDir dir;
  unsetenv(kProbeKeyVariable);
  for (const char* cmd : {"probe listen --run r --duration 1 --key ", "probe send --from a0 --to b=2001:db8::2 -o x --key "}) {
    auto r = hpn::test::run_hpnctl(cmd + kHex, dir.path());
    INFO(cmd);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hpnctl: --key: the probe key is never taken from the command line, where every user of the host "
                   "can read it; give --key-file FILE (mode 0600) or the HPNCTL_PROBE_KEY environment variable\n");
  }
  // No other spelling takes it either.
  for (const char* cmd : {"probe listen --run r --duration 1 --probe-key ", "probe listen --run r --duration 1 --key-hex "}) {
    auto r = hpn::test::run_hpnctl(cmd + kHex, dir.path());
    INFO(cmd);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("listening") == std::string::npos);
  }
  // The help offers a file and the environment only.
  auto help = hpn::test::run_hpnctl("probe listen --help", dir.path());
  CHECK(help.out.find("--key-file") != std::string::npos);
  CHECK(help.out.find("--key ") == std::string::npos);

  const auto open_key = key_file(dir, kHex, 0644);
  auto r = hpn::test::run_hpnctl("probe listen --run r --duration 1 --key-file probe.key", dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --key-file probe.key: mode 0644 lets other users read the probe key; chmod 600 probe.key\n");
  auto none = hpn::test::run_hpnctl("probe send --from a0 --to b=2001:db8::2 -o x", dir.path());
  CHECK(none.exit_code == 2);
  CHECK(none.err.rfind("hpnctl: no probe key:", 0) == 0);
  CHECK_FALSE(fs::exists(dir / "x"));
}
