#include "probe/byte_reader.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace hpn::probe;

TEST_CASE("probe/bytes: ByteReader reads big-endian integers of every width",
          "[probe][byte_reader]") {
  const auto bytes = to_bytes({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
                               0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12});
  ByteReader r(bytes);
  CHECK(*r.u8() == 0x01);
  CHECK(*r.be16() == 0x0203);
  CHECK(*r.be24() == 0x040506);
  CHECK(*r.be32() == 0x0708090a);
  CHECK(*r.be64() == 0x0b0c0d0e0f101112ULL);
  CHECK(r.empty());
  CHECK(r.offset() == 18);
}

TEST_CASE("probe/bytes: ByteReader reports truncation with the absolute offset",
          "[probe][byte_reader]") {
  const auto bytes = to_bytes({0xaa, 0xbb, 0xcc});
  ByteReader r(bytes);
  REQUIRE(r.u8());
  auto v = r.be32("trace type");
  REQUIRE_FALSE(v);
  CHECK(v.error().kind == ErrorKind::truncated);
  CHECK(v.error().offset == 1);
  CHECK(v.error().to_string() == "truncated at byte 1: trace type needs 4 bytes, 2 left");
  // A failed read consumes nothing.
  CHECK(r.remaining() == 2);
  CHECK(*r.be16() == 0xbbcc);
}

TEST_CASE("probe/bytes: ByteReader::sub narrows the bound and keeps counting offsets",
          "[probe][byte_reader]") {
  const auto bytes = to_bytes({1, 2, 3, 4, 5, 6, 7, 8});
  ByteReader r(bytes);
  REQUIRE(r.skip(2));
  auto sub = r.sub(3, "option");
  REQUIRE(sub);
  CHECK(r.offset() == 5);  // the parent skipped the sub-range
  CHECK(sub->offset() == 2);
  CHECK(*sub->u8() == 3);
  auto past = sub->be32("node data");
  REQUIRE_FALSE(past);
  CHECK(past.error().kind == ErrorKind::truncated);
  CHECK(past.error().offset == 3);

  // Inside a structure known to be complete, running out is malformed.
  auto sealed = r.sub(2)->complete();
  auto v = sealed.be32("namespace id");
  REQUIRE_FALSE(v);
  CHECK(v.error().to_string() ==
        "malformed at byte 5: namespace id needs 4 bytes, 2 left in its enclosing header");
  auto nested = sealed.sub(1);
  REQUIRE(nested);
  CHECK(nested->is_complete());

  auto too_long = r.sub(4, "option data");
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().kind == ErrorKind::truncated);
}

TEST_CASE("probe/bytes: ByteReader bytes, peek and skip are checked", "[probe][byte_reader]") {
  const auto bytes = to_bytes({9, 8, 7});
  ByteReader r(bytes);
  CHECK(*r.peek_u8() == 9);
  CHECK(r.remaining() == 3);
  auto b = r.bytes(2);
  REQUIRE(b);
  CHECK(b->size() == 2);
  CHECK(std::to_integer<int>((*b)[1]) == 8);
  CHECK_FALSE(r.skip(2));
  CHECK(r.skip(1));
  CHECK_FALSE(r.peek_u8());
  CHECK_FALSE(r.u8());
}

namespace {
Decoded<int> sum_two(ByteReader& r) {
  HPN_TRY(auto a, r.u8("first"));
  HPN_CHECK(r.skip(1, "gap"));
  HPN_TRY(auto b, r.u8("second"));
  return a + b;
}
}  // namespace

TEST_CASE("probe/bytes: HPN_TRY and HPN_CHECK propagate the first error", "[probe][byte_reader]") {
  const auto ok_bytes = to_bytes({2, 0, 3});
  ByteReader ok(ok_bytes);
  CHECK(*sum_two(ok) == 5);

  const auto short_bytes = to_bytes({2, 0});
  ByteReader bad(short_bytes);
  auto r = sum_two(bad);
  REQUIRE_FALSE(r);
  CHECK(r.error().to_string() == "truncated at byte 2: second needs 1 byte, 0 left");
}

TEST_CASE("probe/bytes: ByteWriter writes big-endian and patches in place",
          "[probe][byte_writer]") {
  ByteWriter w;
  w.u8(0x01).be16(0x0203).be24(0x040506).be32(0x0708090a).be64(0x0b0c0d0e0f101112ULL);
  w.zeros(2).bytes(to_bytes({0xee}));
  w.patch_u8(0, 0xff);
  w.patch_be16(18, 0xabcd);
  CHECK(w.data() == to_bytes({0xff, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
                              0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0xab, 0xcd, 0xee}));
  CHECK_THROWS_AS(w.patch_be16(20, 1), std::out_of_range);

  auto round = std::move(w).take();
  ByteReader r(round);
  CHECK(*r.u8() == 0xff);
  CHECK(*r.be16() == 0x0203);
}

TEST_CASE("probe/bytes: store_* refuse writes outside the buffer", "[probe][byte_writer]") {
  auto buf = to_bytes({0, 0, 0});
  store_be16(buf, 1, 0x1234);
  CHECK(buf == to_bytes({0, 0x12, 0x34}));
  CHECK_THROWS_AS(store_be16(buf, 2, 1), std::out_of_range);
  CHECK_THROWS_AS(store_bytes(buf, 1, to_bytes({1, 2, 3})), std::out_of_range);
  CHECK_THROWS_AS(store_u8(buf, 3, 1), std::out_of_range);
}
