// systemd's readiness protocol (sd_notify(3)) without libsystemd: one
// datagram of "KEY=value" lines to the AF_UNIX socket named by
// $NOTIFY_SOCKET ('@' for the abstract namespace). Outside a unit with
// Type=notify (no $NOTIFY_SOCKET) it does nothing.
#pragma once

#include <string>

#include "blueprint/result.h"

namespace hpn::lab {

// Sends `state` ("READY=1\nSTATUS=routing 12 hosts"); ok when there is no
// $NOTIFY_SOCKET. Errors: a socket that cannot be reached.
Status notify_systemd(const std::string& state);

}  // namespace hpn::lab
