#include "probe/probe_key.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hpn::probe {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string errno_text() { return std::strerror(errno); }

}  // namespace

hpn::Result<ProbeKey> parse_probe_key(std::string_view text, const std::string& source) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  const std::size_t min_digits = 2 * kMinProbeKeyBytes, max_digits = 2 * kMaxProbeKeyBytes;
  if (text.size() % 2 != 0 || text.size() < min_digits || text.size() > max_digits) {
    return Error{fmt::format("{}: a probe key is {} to {} hex digits (an even number), not {}", source, min_digits,
                             max_digits, text.size())};
  }
  ProbeKey key;
  key.bytes.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0) {
      return Error{fmt::format("{}: a probe key is hex digits only; character {} is not one", source,
                               hi < 0 ? i + 1 : i + 2)};
    }
    key.bytes.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return key;
}

hpn::Result<ProbeKey> read_probe_key_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0) {
    return Error{fmt::format("--key-file {}: cannot open: {}{}", path, errno_text(),
                             errno == ELOOP ? " (a symbolic link is not followed)" : "")};
  }
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return Error{fmt::format("--key-file {}: {}", path, errno_text())};
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("--key-file {}: not a regular file", path)};
  if ((st.st_mode & 077) != 0) {
    return Error{fmt::format("--key-file {}: mode {:04o} lets other users {} the probe key; chmod 600 {}", path,
                             st.st_mode & 07777, (st.st_mode & 044) != 0 ? "read" : "replace", path)};
  }
  // A key is at most 128 digits; a little room for white space.
  char buffer[512];
  std::string text;
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) return Error{fmt::format("--key-file {}: {}", path, errno_text())};
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > 4096) return Error{fmt::format("--key-file {}: too long for a probe key", path)};
  }
  auto key = parse_probe_key(text, "--key-file " + path);
  std::fill(text.begin(), text.end(), '\0');
  std::memset(buffer, 0, sizeof buffer);
  return key;
}

hpn::Result<ProbeKey> take_probe_key_from_environment() {
  char* value = std::getenv(kProbeKeyVariable);
  if (value == nullptr) return Error{fmt::format("{} is not set", kProbeKeyVariable)};
  auto key = parse_probe_key(value, kProbeKeyVariable);
  // The process's initial environment is what /proc/PID/environ shows:
  // scrub the text itself, not just the pointer to it.
  std::memset(value, 'x', std::strlen(value));
  unsetenv(kProbeKeyVariable);
  return key;
}

hpn::Result<ProbeKey> load_probe_key(const std::string& key_file) {
  const bool in_environment = std::getenv(kProbeKeyVariable) != nullptr;
  if (!key_file.empty() && in_environment) {
    return Error{fmt::format("the probe key is given twice (--key-file and {}); give it one way", kProbeKeyVariable)};
  }
  if (!key_file.empty()) return read_probe_key_file(key_file);
  if (in_environment) return take_probe_key_from_environment();
  return Error{fmt::format("no probe key: give --key-file FILE (mode 0600) or the {} environment variable (hex); "
                           "`hpnctl probe key -o FILE` makes one",
                           kProbeKeyVariable)};
}

hpn::Result<std::string> random_hex(std::size_t bytes) {
  std::vector<unsigned char> random(bytes);
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = getrandom(random.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"getrandom: " + errno_text()};
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (unsigned char b : random) hex += fmt::format("{:02x}", b);
  std::fill(random.begin(), random.end(), 0);
  return hex;
}

hpn::Status write_new_probe_key(const std::string& path) {
  auto hex = random_hex(kGeneratedProbeKeyBytes);
  if (!hex) return hex.error();
  const std::string temp = fmt::format("{}.tmp-{}", path, getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{fmt::format("{}: cannot create: {}", temp, errno_text())};
  const std::string text = *hex + "\n";
  bool ok = fchmod(fd, 0600) == 0;  // whatever the umask
  ok = ok && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ok && fsync(fd) == 0;
  const std::string why = ok ? std::string() : errno_text();
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = why.empty() ? errno_text() : why;
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: cannot write the key: {}", path, reason)};
  }
  return {};
}

}  // namespace hpn::probe
