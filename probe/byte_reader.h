// Checked, endian-explicit access to packet bytes (STYLE.md example 3).
//
// Every packet parser in probe/ reads through a ByteReader and nothing else:
// each read says how many bytes it needs and fails as a value (never UB, never
// an exception) when they are not there. A sub-header gets its own narrowed
// reader from sub(), so a length field can never make a parser read past the
// structure that contains it. Offsets in errors are absolute: a reader made
// by sub() keeps counting from where its parent was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hpn::probe {

// `truncated`: the bytes end before a length the packet itself declares, so a
// longer capture could decode. `malformed`: the bytes are all there and break
// the format. `invalid_argument`: a builder was asked for something the
// format cannot carry (not about packet bytes at all).
enum class ErrorKind { truncated, malformed, invalid_argument };

struct DecodeError {
  ErrorKind kind = ErrorKind::malformed;
  std::size_t offset = 0;  // byte offset from the start of the decoded buffer
  std::string message;

  static DecodeError truncated(std::size_t offset, std::string message);
  static DecodeError malformed(std::size_t offset, std::string message);
  static DecodeError invalid_argument(std::string message);

  // "truncated at byte 44: IOAM trace header needs 8 bytes, 3 left"
  std::string to_string() const;
  friend bool operator==(const DecodeError&, const DecodeError&) = default;
};

std::string_view to_string(ErrorKind kind);

// A value or the DecodeError that prevented it (std::expected is C++23).
template <class T>
class [[nodiscard]] Decoded {
 public:
  Decoded(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Decoded(DecodeError error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Calling these on the wrong alternative is a programming error and throws
  // std::bad_variant_access.
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const DecodeError& error() const& { return std::get<1>(state_); }
  DecodeError&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, DecodeError> state_;
};

using Status = Decoded<std::monostate>;
inline Status success() { return std::monostate{}; }

#define HPN_PROBE_CONCAT_(a, b) a##b
#define HPN_PROBE_CONCAT(a, b) HPN_PROBE_CONCAT_(a, b)
// HPN_TRY(auto x, reader.be16("what")); declares x from a Decoded or returns
// its error from the enclosing function (whose return type is any Decoded).
#define HPN_TRY(decl, expr) HPN_TRY_IMPL_(HPN_PROBE_CONCAT(hpn_try_, __LINE__), decl, expr)
#define HPN_TRY_IMPL_(tmp, decl, expr)      \
  auto tmp = (expr);                        \
  if (!tmp) return std::move(tmp).error();  \
  decl = std::move(tmp).value()
// HPN_CHECK(reader.skip(2, "pad")); returns the error of a failed Status.
#define HPN_CHECK(expr)                                 \
  do {                                                  \
    if (auto hpn_check_ = (expr); !hpn_check_)          \
      return std::move(hpn_check_).error();             \
  } while (false)

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes, std::size_t base_offset = 0)
      : bytes_(bytes), base_(base_offset) {}

  // The same bytes, but running out of them is `malformed`, not `truncated`.
  // Use it on a sub() whose length was declared by the packet and is fully
  // captured: past that point, a field that does not fit means the packet's
  // own length fields disagree, which a longer capture would not fix.
  ByteReader complete() const {
    ByteReader r = *this;
    r.complete_ = true;
    return r;
  }
  bool is_complete() const { return complete_; }

  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  // Absolute offset of the next byte to be read.
  std::size_t offset() const { return base_ + pos_; }

  // `what` names the field in the error message.
  Decoded<std::uint8_t> u8(std::string_view what = "field");
  Decoded<std::uint16_t> be16(std::string_view what = "field");
  Decoded<std::uint32_t> be24(std::string_view what = "field");
  Decoded<std::uint32_t> be32(std::string_view what = "field");
  Decoded<std::uint64_t> be64(std::string_view what = "field");
  Decoded<std::span<const std::byte>> bytes(std::size_t n, std::string_view what = "field");
  // A reader over the next n bytes, which this reader then skips.
  Decoded<ByteReader> sub(std::size_t n, std::string_view what = "field");
  Status skip(std::size_t n, std::string_view what = "field");
  // The next byte without consuming it.
  Decoded<std::uint8_t> peek_u8(std::string_view what = "field") const;

 private:
  Status need(std::size_t n, std::string_view what) const;
  std::uint64_t take_be(std::size_t n);

  std::span<const std::byte> bytes_;
  std::size_t base_ = 0;
  std::size_t pos_ = 0;
  bool complete_ = false;
};

// Builds packets big-endian. Appends never fail; patch_*() rewrite bytes
// already written (a length known only at the end) and throw
// std::out_of_range on a bad offset, which is a bug in the caller.
class ByteWriter {
 public:
  ByteWriter& u8(std::uint8_t v);
  ByteWriter& be16(std::uint16_t v);
  ByteWriter& be24(std::uint32_t v);
  ByteWriter& be32(std::uint32_t v);
  ByteWriter& be64(std::uint64_t v);
  ByteWriter& bytes(std::span<const std::byte> b);
  ByteWriter& zeros(std::size_t n);

  void patch_u8(std::size_t at, std::uint8_t v);
  void patch_be16(std::size_t at, std::uint16_t v);

  std::size_t size() const { return out_.size(); }
  const std::vector<std::byte>& data() const { return out_; }
  std::vector<std::byte> take() && { return std::move(out_); }

 private:
  void put_be(std::uint64_t v, std::size_t n);
  std::vector<std::byte> out_;
};

// In-place big-endian stores into a mutable packet (a transit node rewriting
// a header field); throw std::out_of_range when [at, at+n) is outside `out`.
void store_u8(std::span<std::byte> out, std::size_t at, std::uint8_t v);
void store_be16(std::span<std::byte> out, std::size_t at, std::uint16_t v);
void store_bytes(std::span<std::byte> out, std::size_t at, std::span<const std::byte> b);

// Test and builder convenience: bytes from a list of small integers.
std::vector<std::byte> to_bytes(std::initializer_list<int> values);

}  // namespace hpn::probe
