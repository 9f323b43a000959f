// The probe agent reads packets anyone on the wire can send, so once its
// sockets are open it gives up everything but CAP_NET_RAW: another user, no
// supplementary groups, no other capability (effective, permitted,
// inheritable, ambient or bounding), no_new_privs, not dumpable. Then it
// checks that it worked: setuid(0) must fail and /proc/self/status must show
// CAP_NET_RAW alone.
//
// CAP_NET_RAW is what the agent's sockets needed when they were set up
// (SO_BINDTODEVICE, IPV6_HOPOPTS); keeping it lets a kernel that checks again
// on send still send. Nothing after the drop needs more: sockets, the port
// map and the key are all opened before, and output files are written by the
// unprivileged user (so their directory must be writable by it).
#pragma once

#include <cstdint>
#include <string>

#include "blueprint/result.h"

namespace hpn::probe {

struct DroppedTo {
  std::string user;     // empty when the agent did not run as root (no user change)
  unsigned uid = 0, gid = 0;
};

// As root: switch to `user` (which must not be root) keeping CAP_NET_RAW.
// Not root: keep the user, drop every capability but CAP_NET_RAW (when held).
// Either way no_new_privs is set and the result verified; an error means the
// agent must not go on.
hpn::Result<DroppedTo> drop_privileges(const std::string& user);

// The `Cap*` line `name` of /proc/self/status as a number (e.g. "CapEff").
hpn::Result<std::uint64_t> own_capabilities(const std::string& name);

}  // namespace hpn::probe
