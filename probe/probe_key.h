// The probe key: the secret every probe and reply is authenticated with
// (probe_auth.h). It reaches the agent from a file only its owner can read
// (`--key-file`) or from the environment (HPNCTL_PROBE_KEY), never from the
// command line, where any user of the host could read it in ps(1) or
// /proc/PID/cmdline.
//
// Both carry the key as hex text: 32 to 128 hex digits (16 to 64 bytes;
// `hpnctl probe key` makes 32 random bytes), surrounding white space ignored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"

namespace hpn::probe {

inline constexpr const char* kProbeKeyVariable = "HPNCTL_PROBE_KEY";
inline constexpr std::size_t kMinProbeKeyBytes = 16;
inline constexpr std::size_t kMaxProbeKeyBytes = 64;
inline constexpr std::size_t kGeneratedProbeKeyBytes = 32;

struct ProbeKey {
  std::vector<std::byte> bytes;
};

// Hex text -> key; `source` names it in errors. Never quotes the text.
hpn::Result<ProbeKey> parse_probe_key(std::string_view text, const std::string& source);

// Reads a key file, refusing anything but a regular file with no permission
// for group or others (checked on the open descriptor, so the file checked
// is the file read).
hpn::Result<ProbeKey> read_probe_key_file(const std::string& path);

// The key from HPNCTL_PROBE_KEY; the variable's text is overwritten in place
// and removed, so it no longer shows in /proc/PID/environ. Errors when unset.
hpn::Result<ProbeKey> take_probe_key_from_environment();

// The key from `key_file` when given, else from the environment; both or
// neither is an error.
hpn::Result<ProbeKey> load_probe_key(const std::string& key_file);

// `bytes` random bytes from the kernel (getrandom), as hex.
hpn::Result<std::string> random_hex(std::size_t bytes);

// A fresh key written to `path` with mode 0600 through a temporary file
// renamed over it: no moment where the key is readable by others, and no
// half-written key file.
hpn::Status write_new_probe_key(const std::string& path);

}  // namespace hpn::probe
