// Named network namespaces, kept the way iproute2 keeps them (ip/ipnetns.c):
// the namespace file bind-mounted on /run/netns/NAME, /run/netns itself a
// shared mount so the name is seen from every mount namespace. `ip netns
// list` shows them and `ip netns exec` enters them.
//
// setns(2) and unshare(CLONE_NEWNET) change only the calling thread, so all
// work inside a namespace runs in a thread of its own: the caller's
// namespace never changes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::lab {

inline constexpr const char* kNetnsRunDir = "/run/netns";

Status create_named_netns(const std::string& name);
// Unmounts and removes the name; the namespace (and every interface in it)
// goes once nothing else holds it. A missing name is not an error.
Status delete_named_netns(const std::string& name);
Result<std::vector<std::string>> list_named_netns();

// Runs `work` on a new thread that has entered namespace `name`, and waits;
// an empty name runs it here, in this thread's own namespace.
Status run_in_netns(const std::string& name, const std::function<Status()>& work);

// A socket created inside namespace `name` (it stays bound to that
// namespace wherever it is used), or an error.
Result<int> socket_in_netns(const std::string& name, int domain, int type, int protocol);

}  // namespace hpn::lab
