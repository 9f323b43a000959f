#include "probe/payload.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

#include "fake_network.h"

using namespace hpn::probe;

namespace {

ProbeHeader sample_probe() {
  ProbeHeader p;
  p.run_id = 0x0102030405060708ull;
  p.probe_id = 42;
  p.attempt = 2;
  p.sent_ns = 1'700'000'000'123'456'789;
  return p;
}

ProbeReply sample_reply() {
  ProbeReply r;
  r.probe = sample_probe();
  r.probe_received_ns = 1'700'000'000'200'000'000;
  r.reply_sent_ns = 1'700'000'000'200'000'100;
  r.port = "etp17b";
  r.forward_trace = testing::filled_trace({{7, 11, 12}});
  return r;
}

}  // namespace

TEST_CASE("agent/payload: a probe is 32 bytes laid out as documented", "[agent][payload]") {
  const auto bytes = encode_probe(sample_probe());
  CHECK(bytes == to_bytes({'H', 'P', 'N', 'p', 1, 1, 2, 0,                      // magic version kind attempt rsvd
                           1, 2, 3, 4, 5, 6, 7, 8,                              // run id
                           0, 0, 0, 0, 0, 0, 0, 42,                             // probe id
                           0x17, 0x97, 0x9c, 0xfe, 0x3d, 0x85, 0xcd, 0x15}));  // sent ns
  CHECK(decode_probe(bytes).value() == sample_probe());
  CHECK(classify_payload(bytes) == PayloadClass::probe);
}

TEST_CASE("agent/payload: every truncation of a probe is 'truncated', a byte more 'malformed'", "[agent][payload]") {
  const auto bytes = encode_probe(sample_probe());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("length " << n);
    auto r = decode_probe(std::span(bytes).first(n));
    REQUIRE_FALSE(r);
    // A short prefix with a wrong magic cannot exist: it is always a prefix of ours.
    CHECK(r.error().kind == ErrorKind::truncated);
  }
  auto longer = bytes;
  longer.push_back(std::byte{0});
  auto r = decode_probe(longer);
  REQUIRE_FALSE(r);
  CHECK(r.error().to_string() == "malformed at byte 32: 1 trailing byte after the probe");
}

TEST_CASE("agent/payload: a reply round-trips, and every truncation is 'truncated'", "[agent][payload]") {
  const auto reply = sample_reply();
  const auto bytes = encode_reply(reply).value();
  CHECK(bytes.size() == kProbeHeaderSize + 16 + 1 + 6 + 2 + reply.forward_trace.size());
  CHECK(decode_reply(bytes).value() == reply);
  CHECK(classify_payload(bytes) == PayloadClass::reply);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("length " << n);
    auto r = decode_reply(std::span(bytes).first(n));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == ErrorKind::truncated);
  }
  const std::size_t trace = reply.forward_trace.size();
  auto cut = decode_reply(std::span(bytes).first(bytes.size() - 1));
  CHECK(cut.error().to_string() == fmt::format("truncated at byte {}: forward trace needs {} bytes, {} left",
                                               bytes.size() - trace, trace, trace - 1));
}

TEST_CASE("agent/payload: foreign, other versions and other kinds are told apart", "[agent][payload]") {
  auto probe = encode_probe(sample_probe());
  CHECK(classify_payload({}) == PayloadClass::foreign);
  CHECK(classify_payload(std::span(probe).first(5)) == PayloadClass::foreign);
  auto bad_magic = probe;
  bad_magic[3] = std::byte{'q'};
  CHECK(classify_payload(bad_magic) == PayloadClass::foreign);
  CHECK(decode_probe(bad_magic).error().to_string() == "malformed at byte 0: magic 0x48504E71 is not an hpnctl probe's");
  auto version = probe;
  version[4] = std::byte{2};
  CHECK(classify_payload(version) == PayloadClass::unknown_version);
  CHECK(decode_probe(version).error().to_string() == "malformed at byte 4: version 2 unknown (this reader knows 1)");
  auto kind = probe;
  kind[5] = std::byte{9};
  CHECK(classify_payload(kind) == PayloadClass::unknown_kind);
  CHECK(decode_probe(kind).error().to_string() == "malformed at byte 5: kind 9 where a probe (1) was expected");
  CHECK(decode_reply(probe).error().to_string() == "malformed at byte 5: kind 1 where a reply (2) was expected");
  // The reserved byte is ignored on receive.
  auto reserved = probe;
  reserved[7] = std::byte{0xFF};
  CHECK(decode_probe(reserved).value() == sample_probe());
}

TEST_CASE("agent/payload: a reply's lengths are checked", "[agent][payload]") {
  const auto good = encode_reply(sample_reply()).value();
  const std::size_t name_at = kProbeHeaderSize + 16;
  SECTION("empty port name") {
    std::vector<std::byte> bytes(good.begin(), good.begin() + name_at);
    bytes.push_back(std::byte{0});
    CHECK(decode_reply(bytes).error().to_string() == "malformed at byte 48: port name is empty");
  }
  SECTION("trace length not a multiple of 8") {
    auto bytes = good;
    bytes[name_at + 1 + 6 + 1] = std::byte{57};
    CHECK(decode_reply(bytes).error().to_string() ==
          "malformed at byte 55: trace length 57 is not a Hop-by-Hop header's (a multiple of 8, at most 2048)");
  }
  SECTION("trace length past the largest extension header") {
    auto bytes = good;
    bytes[name_at + 1 + 6] = std::byte{0x08};
    bytes[name_at + 1 + 6 + 1] = std::byte{0x08};
    CHECK(decode_reply(bytes).error().kind == ErrorKind::malformed);
  }
  SECTION("trailing bytes") {
    auto bytes = good;
    bytes.push_back(std::byte{1});
    bytes.push_back(std::byte{2});
    CHECK(decode_reply(bytes).error().to_string() ==
          fmt::format("malformed at byte {}: 2 trailing bytes after the reply", good.size()));
  }
}

TEST_CASE("agent/payload: a reply this code could not read back is never encoded", "[agent][payload]") {
  auto r = sample_reply();
  r.port = "";
  CHECK(encode_reply(r).error().kind == ErrorKind::invalid_argument);
  r.port = std::string(256, 'p');
  CHECK_FALSE(encode_reply(r));
  r.port = std::string(255, 'p');
  CHECK(decode_reply(encode_reply(r).value()).value() == r);
  r.forward_trace.push_back(std::byte{0});
  CHECK_FALSE(encode_reply(r));
  r.forward_trace.assign(kMaxHopByHopSize + 8, std::byte{1});
  CHECK_FALSE(encode_reply(r));
  r.forward_trace.clear();  // a probe without a trace can still be described
  CHECK(decode_reply(encode_reply(r).value()).value() == r);
}

TEST_CASE("agent/payload: random bytes decode to an error or to what re-encodes to them", "[agent][payload]") {
  std::mt19937 random(20240817);
  const auto probe = encode_probe(sample_probe());
  const auto reply = encode_reply(sample_reply()).value();
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    // Mostly mutations of valid payloads, so the checks past the magic run too.
    std::vector<std::byte> bytes = (i % 3 == 0) ? probe : reply;
    if (i % 5 == 0) bytes.resize(random() % 80);
    const int flips = 1 + static_cast<int>(random() % 4);
    for (int f = 0; f < flips && !bytes.empty(); ++f) bytes[random() % bytes.size()] = std::byte(random() & 0xFF);
    if (auto p = decode_probe(bytes)) {
      ++decoded;
      auto again = encode_probe(*p);
      bytes[7] = std::byte{0};  // reserved: ignored on receive, zero on send
      CHECK(again == bytes);
    }
    if (auto r = decode_reply(bytes)) {
      ++decoded;
      auto again = encode_reply(*r).value();
      bytes[7] = std::byte{0};
      CHECK(again == bytes);
    }
  }
  CHECK(decoded > 0);  // the property was exercised, not only the error paths
}

TEST_CASE("agent/payload: run ids are 64-bit FNV-1a of the identifier", "[agent][payload]") {
  // Reference values of the FNV test suite.
  CHECK(run_id_of("") == 0xcbf29ce484222325ull);
  CHECK(run_id_of("a") == 0xaf63dc4c8601ec8cull);
  CHECK(run_id_of("foobar") == 0x85944171f73967e8ull);
}
