#include "probe/byte_reader.h"

#include <fmt/format.h>

#include <algorithm>

namespace hpn::probe {

DecodeError DecodeError::truncated(std::size_t offset, std::string message) {
  return {ErrorKind::truncated, offset, std::move(message)};
}

DecodeError DecodeError::malformed(std::size_t offset, std::string message) {
  return {ErrorKind::malformed, offset, std::move(message)};
}

DecodeError DecodeError::invalid_argument(std::string message) {
  return {ErrorKind::invalid_argument, 0, std::move(message)};
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::truncated: return "truncated";
    case ErrorKind::malformed: return "malformed";
    case ErrorKind::invalid_argument: return "invalid argument";
  }
  return "error";
}

std::string DecodeError::to_string() const {
  if (kind == ErrorKind::invalid_argument) {
    return fmt::format("invalid argument: {}", message);
  }
  return fmt::format("{} at byte {}: {}", probe::to_string(kind), offset, message);
}

Status ByteReader::need(std::size_t n, std::string_view what) const {
  if (n > remaining()) {
    auto message = fmt::format("{} needs {} byte{}, {} left", what, n, n == 1 ? "" : "s",
                               remaining());
    if (complete_) {
      return DecodeError::malformed(offset(), message + " in its enclosing header");
    }
    return DecodeError::truncated(offset(), std::move(message));
  }
  return success();
}

std::uint64_t ByteReader::take_be(std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v = (v << 8) | std::to_integer<std::uint64_t>(bytes_[pos_ + i]);
  }
  pos_ += n;
  return v;
}

Decoded<std::uint8_t> ByteReader::u8(std::string_view what) {
  HPN_CHECK(need(1, what));
  return static_cast<std::uint8_t>(take_be(1));
}

Decoded<std::uint8_t> ByteReader::peek_u8(std::string_view what) const {
  HPN_CHECK(need(1, what));
  return std::to_integer<std::uint8_t>(bytes_[pos_]);
}

Decoded<std::uint16_t> ByteReader::be16(std::string_view what) {
  HPN_CHECK(need(2, what));
  return static_cast<std::uint16_t>(take_be(2));
}

Decoded<std::uint32_t> ByteReader::be24(std::string_view what) {
  HPN_CHECK(need(3, what));
  return static_cast<std::uint32_t>(take_be(3));
}

Decoded<std::uint32_t> ByteReader::be32(std::string_view what) {
  HPN_CHECK(need(4, what));
  return static_cast<std::uint32_t>(take_be(4));
}

Decoded<std::uint64_t> ByteReader::be64(std::string_view what) {
  HPN_CHECK(need(8, what));
  return take_be(8);
}

Decoded<std::span<const std::byte>> ByteReader::bytes(std::size_t n, std::string_view what) {
  HPN_CHECK(need(n, what));
  auto out = bytes_.subspan(pos_, n);
  pos_ += n;
  return out;
}

Decoded<ByteReader> ByteReader::sub(std::size_t n, std::string_view what) {
  const std::size_t start = offset();
  HPN_TRY(auto span, bytes(n, what));
  ByteReader r(span, start);
  r.complete_ = complete_;
  return r;
}

Status ByteReader::skip(std::size_t n, std::string_view what) {
  HPN_CHECK(need(n, what));
  pos_ += n;
  return success();
}

void ByteWriter::put_be(std::uint64_t v, std::size_t n) {
  for (std::size_t i = n; i-- > 0;) {
    out_.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
  }
}

ByteWriter& ByteWriter::u8(std::uint8_t v) { put_be(v, 1); return *this; }
ByteWriter& ByteWriter::be16(std::uint16_t v) { put_be(v, 2); return *this; }
ByteWriter& ByteWriter::be24(std::uint32_t v) { put_be(v & 0xFFFFFF, 3); return *this; }
ByteWriter& ByteWriter::be32(std::uint32_t v) { put_be(v, 4); return *this; }
ByteWriter& ByteWriter::be64(std::uint64_t v) { put_be(v, 8); return *this; }

ByteWriter& ByteWriter::bytes(std::span<const std::byte> b) {
  out_.insert(out_.end(), b.begin(), b.end());
  return *this;
}

ByteWriter& ByteWriter::zeros(std::size_t n) {
  out_.insert(out_.end(), n, std::byte{0});
  return *this;
}

void ByteWriter::patch_u8(std::size_t at, std::uint8_t v) { store_u8(out_, at, v); }
void ByteWriter::patch_be16(std::size_t at, std::uint16_t v) { store_be16(out_, at, v); }

namespace {
void check_range(std::span<std::byte> out, std::size_t at, std::size_t n) {
  if (at > out.size() || n > out.size() - at) {
    throw std::out_of_range(
        fmt::format("store of {} bytes at {} outside a {}-byte buffer", n, at, out.size()));
  }
}
}  // namespace

void store_u8(std::span<std::byte> out, std::size_t at, std::uint8_t v) {
  check_range(out, at, 1);
  out[at] = static_cast<std::byte>(v);
}

void store_be16(std::span<std::byte> out, std::size_t at, std::uint16_t v) {
  check_range(out, at, 2);
  out[at] = static_cast<std::byte>(v >> 8);
  out[at + 1] = static_cast<std::byte>(v & 0xFF);
}

void store_bytes(std::span<std::byte> out, std::size_t at, std::span<const std::byte> b) {
  check_range(out, at, b.size());
  std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
}

std::vector<std::byte> to_bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  out.reserve(values.size());
  for (int v : values) out.push_back(static_cast<std::byte>(v & 0xFF));
  return out;
}

}  // namespace hpn::probe
