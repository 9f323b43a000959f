// Reading and writing the kernel's sysctls through /proc/sys, in the
// network namespace of the calling thread (/proc/sys/net is per namespace).
// Keys are sysctl.d(5)'s dotted form: net.ipv6.conf.etp1.mtu. Their readers
// (host profiles, switch sets) check them before they get here.
#pragma once

#include <optional>
#include <string>

#include "blueprint/result.h"

namespace hpn {

// /proc/sys/net/ipv6/conf/etp1/mtu for net.ipv6.conf.etp1.mtu.
std::string sysctl_path(const std::string& key);
// The value without its trailing newline and blanks; nullopt when the key
// does not exist here or cannot be read.
std::optional<std::string> read_sysctl(const std::string& key);
// Writes the value whole, or an error naming key and value.
Status write_sysctl(const std::string& key, const std::string& value);

}  // namespace hpn
