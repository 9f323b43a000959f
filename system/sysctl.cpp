#include "system/sysctl.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hpn {

std::string sysctl_path(const std::string& key) {
  std::string path = "/proc/sys/" + key;
  std::replace(path.begin() + 10, path.end(), '.', '/');
  return path;
}

std::optional<std::string> read_sysctl(const std::string& key) {
  const int fd = open(sysctl_path(key).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n < 0) return std::nullopt;
  std::string value(buf, static_cast<size_t>(n));
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ' || value.back() == '\t')) value.pop_back();
  return value;
}

Status write_sysctl(const std::string& key, const std::string& value) {
  const int fd = open(sysctl_path(key).c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("sysctl {}: {}", key, std::strerror(errno))};
  const bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  const int saved = errno;
  close(fd);
  if (!ok) return Error{fmt::format("sysctl {}={}: {}", key, value, std::strerror(saved))};
  return {};
}

}  // namespace hpn
