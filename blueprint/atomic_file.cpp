#include "blueprint/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <streambuf>

namespace hpn {

namespace fs = std::filesystem;

namespace {

// An ostream's buffer over a file descriptor; remembers the first errno.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (p < pptr()) {
      ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (!error_) error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

// Closes a descriptor on every way out.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error failed(const std::string& path, std::string_view what, int error) {
  return Error{fmt::format("{}: {}: {}", path, what, std::strerror(error))};
}

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return pw ? fmt::format("{} (uid {})", pw->pw_name, uid) : fmt::format("uid {}", uid);
}

// `body` into `fd`; false with the errno on a write error.
int stream_into(int fd, const std::function<void(std::ostream&)>& body) {
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  body(out);
  out.flush();
  if (out) return 0;
  return buffer.error() ? buffer.error() : EIO;
}

// The descriptor an already-open stream's name stands for.
std::optional<int> open_stream_fd(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  std::string_view number;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) == 0) number = std::string_view(path).substr(prefix.size());
  }
  int fd = -1;
  if (number.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), fd);
  if (ec != std::errc() || end != number.data() + number.size() || fd < 0) return std::nullopt;
  return fd;
}

Status write_open_stream(const std::string& path, int fd, const std::function<void(std::ostream&)>& body) {
  // What this process already wrote there through stdio comes first.
  if (fd == 1) std::fflush(stdout);
  if (fd == 2) std::fflush(stderr);
  const int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (own < 0) return failed(path, "cannot write", errno);
  Fd closer(own);
  if (int error = stream_into(own, body)) return failed(path, "write failed", error);
  return {};
}

// The directory `dir`, opened. Its symbolic links are followed only when
// they are the caller's, root's, or their directory owner's (the rule of
// the kernel's fs.protected_symlinks): one planted by another user in a
// shared directory is refused. A link that passes is followed by the
// kernel, with whatever links its own target holds.
Result<int> open_directory(const std::string& path, const fs::path& dir) {
  int fd = ::open(dir.is_absolute() ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return failed(path, "cannot write", errno);
  for (const auto& part : dir.relative_path()) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    struct stat here {}, st {};
    if (::fstat(fd, &here) != 0 || ::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      const int error = errno;
      ::close(fd);
      return failed(path, "cannot write", error);
    }
    if (S_ISLNK(st.st_mode) && st.st_uid != ::geteuid() && st.st_uid != 0 && st.st_uid != here.st_uid) {
      ::close(fd);
      return Error{fmt::format("{}: cannot write: {} is a symbolic link of {} in a directory of {}; refusing to "
                               "follow it",
                               path, name, user_name(st.st_uid), user_name(here.st_uid))};
    }
    const int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int error = errno;
    ::close(fd);
    if (next < 0) return failed(path, "cannot write", error);
    fd = next;
  }
  return fd;
}

// Temporaries of writers that were killed half-way: ".NAME.tmp-PID-N" whose
// process is gone, regular files of this user. Ours and live ones stay.
void remove_stale(int dir_fd, const std::string& prefix) {
  const int copy = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) return;
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    ::close(copy);
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == ::geteuid()) {
      ::unlinkat(dir_fd, name.c_str(), 0);
    }
  }
  ::closedir(d);
}

std::atomic<unsigned> g_sequence{0};

// A FIFO, a device or a socket at NAME: written in place, if it is the
// caller's or root's.
Status write_in_place(const std::string& path, int dir_fd, const std::string& name, const struct stat& seen,
                      const std::function<void(std::ostream&)>& body) {
  if (seen.st_uid != ::geteuid() && seen.st_uid != 0) {
    return Error{fmt::format("{}: cannot write: it is a {} of {}, not a file; refusing to write into it", path,
                             S_ISFIFO(seen.st_mode) ? "FIFO" : "special file", user_name(seen.st_uid))};
  }
  // O_NONBLOCK: a FIFO with no reader is ENXIO at once, not a wait forever.
  const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO && S_ISFIFO(seen.st_mode)) return Error{path + ": cannot write: a FIFO with no reader"};
    return failed(path, "cannot write", errno);
  }
  Fd closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_dev != seen.st_dev || st.st_ino != seen.st_ino) {
    return Error{path + ": cannot write: it changed while being opened"};
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (int error = stream_into(fd, body)) return failed(path, "write failed", error);
  return {};
}

}  // namespace

bool is_open_stream_name(const std::string& path) { return open_stream_fd(path).has_value(); }

Status write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& body, int mode) {
  if (auto fd = open_stream_fd(path)) return write_open_stream(path, *fd, body);
  const fs::path target(path);
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..") return Error{fmt::format("{}: name a file to write", path)};
  auto opened = open_directory(path, target.parent_path());
  if (!opened) return opened.error();
  Fd dir(opened.value());

  struct stat seen {};
  if (::fstatat(dir.fd, name.c_str(), &seen, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(seen.st_mode) && seen.st_uid != ::geteuid()) {
      return Error{fmt::format("{}: cannot write: it is a symbolic link of {}; refusing to write through or over it",
                               path, user_name(seen.st_uid))};
    }
    if (!S_ISREG(seen.st_mode) && !S_ISLNK(seen.st_mode) && !S_ISDIR(seen.st_mode)) {
      return write_in_place(path, dir.fd, name, seen, body);
    }
  } else if (errno != ENOENT) {
    return failed(path, "cannot write", errno);
  }

  const std::string prefix = "." + name + ".tmp-";
  remove_stale(dir.fd, prefix);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp = fmt::format("{}{}-{}", prefix, ::getpid(), g_sequence++);
    fd = ::openat(dir.fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;  // EEXIST: someone's file by that name; take the next
  }
  if (fd < 0) return failed(path, "cannot write", errno);
  auto abandon = [&](std::string_view what, int error) -> Status {
    ::close(fd);
    ::unlinkat(dir.fd, temp.c_str(), 0);
    return failed(path, what, error);
  };
  if (int error = stream_into(fd, body)) return abandon("write failed", error);
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return abandon("cannot set mode", errno);
  if (::fsync(fd) != 0) return abandon("write failed", errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlinkat(dir.fd, temp.c_str(), 0);
    return failed(path, "write failed", error);
  }
  // The name itself is replaced, whatever it is: a link is never resolved.
  if (::renameat(dir.fd, temp.c_str(), dir.fd, name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(dir.fd, temp.c_str(), 0);
    return failed(path, "cannot replace", error);
  }
  // The rename itself is durable once the directory is synced.
  ::fsync(dir.fd);
  return {};
}

Status write_file_atomic(const std::string& path, std::string_view content, int mode) {
  return write_file_atomic(
      path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); }, mode);
}

Status write_new_file(const std::string& path, const std::function<void(std::ostream&)>& body, int mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return failed(path, "cannot create", errno);
  if (int error = stream_into(fd, body)) {
    ::close(fd);
    return failed(path, "write failed", error);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
    const int error = errno;
    ::close(fd);
    return failed(path, "cannot set mode", error);
  }
  if (::close(fd) != 0) return failed(path, "write failed", errno);
  return {};
}

Status write_new_file(const std::string& path, std::string_view content, int mode) {
  return write_new_file(
      path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); }, mode);
}

}  // namespace hpn
