#include "system/sd_notify.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hpn::lab {

Status notify_systemd(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (path == nullptr || path[0] == '\0') return {};
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  const size_t len = std::strlen(path);
  if ((path[0] != '/' && path[0] != '@') || len >= sizeof to.sun_path) {
    return Error{fmt::format("NOTIFY_SOCKET '{}' is not a socket path", path)};
  }
  std::memcpy(to.sun_path, path, len);
  if (path[0] == '@') to.sun_path[0] = '\0';
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{fmt::format("notify socket: {}", std::strerror(errno))};
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
  const ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&to), size);
  const int err = errno;
  close(fd);
  if (sent < 0) return Error{fmt::format("notify {}: {}", path, std::strerror(err))};
  return {};
}

}  // namespace hpn::lab
