// Small libnl helpers shared by host_state.cpp and host_netlink.cpp: owning
// handles, connecting, error text, and addresses to and from text.
#pragma once

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <memory>
#include <string>

#include "blueprint/result.h"

namespace hpn::host::nl {

template <class T, auto Free>
struct Deleter {
  void operator()(T* p) const {
    if (p != nullptr) Free(p);
  }
};
using Sock = std::unique_ptr<nl_sock, Deleter<nl_sock, nl_socket_free>>;
using Addr = std::unique_ptr<nl_addr, Deleter<nl_addr, nl_addr_put>>;
using Cache = std::unique_ptr<nl_cache, Deleter<nl_cache, nl_cache_free>>;

inline Error error(const std::string& what, int err) { return Error{fmt::format("{}: {}", what, nl_geterror(err))}; }

inline Result<Sock> connect_route() {
  Sock sk(nl_socket_alloc());
  if (!sk) return Error{"netlink: out of memory"};
  if (int err = nl_connect(sk.get(), NETLINK_ROUTE); err < 0) return error("netlink connect", err);
  return sk;
}

// The address part in inet_ntop's canonical text; an absent or empty
// address (a default route's destination) is the family's zero address.
inline std::string text(nl_addr* a, int family) {
  char out[INET6_ADDRSTRLEN] = "";
  unsigned char zero[16] = {};
  const void* bytes = zero;
  if (a != nullptr && nl_addr_get_len(a) == (family == AF_INET ? 4u : 16u)) bytes = nl_addr_get_binary_addr(a);
  inet_ntop(family, bytes, out, sizeof out);
  return out;
}

inline Result<Addr> parse(const std::string& address, int length, int family) {
  nl_addr* a = nullptr;
  const int af = family == 4 ? AF_INET : AF_INET6;
  if (int err = nl_addr_parse(fmt::format("{}/{}", address, length).c_str(), af, &a); err < 0) {
    return error(fmt::format("address {}", address), err);
  }
  return Addr(a);
}

}  // namespace hpn::host::nl
