// The host profile's format, described once: every object's keys, in the
// order the writer puts them, with their JSON type, whether null stands for
// "none" and whether the key must be there. hostconfig/profile_json.cpp
// writes it, host/host_profile.cpp reads it (check_profile_shape first, its
// own range and meaning checks after; the network part into the one type
// both sides share, host_network.h), and schemas/host-profile.schema.json
// is held to it by a test (tests/hostconfig/profile_format_test.cpp), so a
// key added, dropped or retyped in one place and not the others fails.
//
// It lives in blueprint/ because host/ (on GPU hosts) may depend on the
// blueprint and system/ only, and hostconfig/ writes what host/ reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpn {

inline constexpr const char* kProfileFormat = "hpnctl-host-profile";
inline constexpr int kProfileVersion = 1;

// The bonding modes mlx5 RoCE LAG accepts (FIELD.md section 4).
enum class BondMode { balance_xor, lacp, active_backup };
std::string_view to_string(BondMode mode);  // the kernel's names: balance-xor, 802.3ad, active-backup
bool parse_bond_mode(std::string_view text, BondMode& out);

// Back-end bond N routes in table 1000 + N, chosen by a rule on its source
// address at priority 1000 + N: eight bonds share one back-end prefix, and
// each must leave by its own rail. The lab routes its hosts by these tables
// (lab/routing.h kHostTableBase, held equal by a static_assert).
inline constexpr int kBackendTableBase = 1000;

enum class JsonType { string, integer, boolean, array, object };
std::string_view to_string(JsonType type);  // JSON Schema's names: "string", "integer", ...

struct ProfileKey {
  std::string_view name;
  JsonType type;
  bool nullable = false;  // null is a value: "none"
  bool required = true;
  // object: the ProfileObject it holds; array: its items' ProfileObject, or
  // empty for items of type `items`.
  std::string_view object = {};
  JsonType items = JsonType::string;
};

// One alternative of an object chosen by the value of its first key (a
// bond's monitor: "kind": "arp" or "mii").
struct ProfileVariant {
  std::string_view value, object;
};

struct ProfileObject {
  std::string_view name;
  std::vector<ProfileKey> keys;
  // Keys not named are allowed, of type `open_type` (the NCCL environment).
  bool open = false;
  JsonType open_type = JsonType::string;
  std::vector<ProfileVariant> variants{};  // non-empty: keys come from the chosen variant

  const ProfileKey* find(std::string_view key) const;
};

struct ProfileFormat {
  std::vector<ProfileObject> objects;  // "profile", the root, first
  const ProfileObject* find(std::string_view name) const;
};

// The description hpnctl writes and reads.
const ProfileFormat& host_profile_format();

// The first place a document departs from `format`: an unknown key (with a
// "did you mean"), a key missing, or a value of the wrong type, as a JSON
// pointer ("/" for the root) and a message. Values are not checked beyond
// their type: ranges and meanings are the reader's.
struct ShapeProblem {
  std::string pointer, message;
};
std::optional<ShapeProblem> check_profile_shape(const nlohmann::json& doc,
                                                const ProfileFormat& format = host_profile_format());
// Only `object`'s own keys: unknown ones, then missing ones, then types.
std::optional<ShapeProblem> check_object_shape(const nlohmann::json& obj, const std::string& at,
                                               const ProfileObject& object, const ProfileFormat& format);

// "an integer", "a string", ... as the reader's messages name them.
const char* json_type_name(const nlohmann::json& value);

// The description as JSON, for the schema test (tests/hostconfig/check_profile_format.py).
nlohmann::ordered_json format_json(const ProfileFormat& format);

}  // namespace hpn
