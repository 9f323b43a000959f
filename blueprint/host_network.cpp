#include "blueprint/host_network.h"

#include <arpa/inet.h>

#include <algorithm>

namespace hpn {

bool parse_ip_address(std::string_view text, int family, std::string& canonical) {
  if (text.empty() || text.size() > INET6_ADDRSTRLEN) return false;
  const std::string s(text);
  unsigned char buf[16];
  for (int f : {4, 6}) {
    if (family != 0 && family != f) continue;
    const int af = f == 4 ? AF_INET : AF_INET6;
    if (inet_pton(af, s.c_str(), buf) == 1) {
      char out[INET6_ADDRSTRLEN];
      inet_ntop(af, buf, out, sizeof out);
      canonical = out;
      return true;
    }
  }
  return false;
}

bool parse_ip_prefix(std::string_view text, int family, IpPrefix& out) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view len = text.substr(slash + 1);
  if (len.empty() || len.size() > 3 || !std::all_of(len.begin(), len.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  std::string address;
  if (!parse_ip_address(text.substr(0, slash), family, address)) return false;
  const int f = address.find(':') == std::string::npos ? 4 : 6;
  const int n = std::stoi(std::string(len));
  if (n > (f == 4 ? 32 : 128)) return false;
  out = IpPrefix{f, address, n};
  return true;
}

}  // namespace hpn
