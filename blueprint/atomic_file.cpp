#include "blueprint/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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

// Temporaries of writers that were killed half-way: ".NAME.tmp-PID-N" whose
// process is gone. Ours and live ones are left alone.
void remove_stale(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
  }
}

std::atomic<unsigned> g_sequence{0};

// A pipe, a terminal, /dev/stdout: a stream, not a file that could be
// replaced; it is written as it is.
Status write_stream(const std::string& path, const std::function<void(std::ostream&)>& body) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  body(out);
  out.flush();
  const bool ok = static_cast<bool>(out);
  ::close(fd);
  if (!ok) return Error{fmt::format("{}: write failed: {}", path, std::strerror(buffer.error() ? buffer.error() : EIO))};
  return {};
}

}  // namespace

Status write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& body, int mode) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return write_stream(path, body);
  // A symbolic link stays one: the file it names is the one replaced.
  fs::path target(path);
  struct stat link {};
  if (exists && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    std::error_code ec;
    fs::path real = fs::canonical(target, ec);
    if (!ec) target = real;
  }
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..") {
    return Error{fmt::format("{}: name a file to write", path)};
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  remove_stale(dir, prefix);
  const fs::path temp = dir / fmt::format("{}{}-{}", prefix, getpid(), g_sequence++);

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  auto abandon = [&](const std::string& what, int error) -> Status {
    ::close(fd);
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: {}: {}", path, what, std::strerror(error))};
  };
  FdBuffer buffer(fd);
  {
    std::ostream out(&buffer);
    body(out);
    out.flush();
    if (!out) return abandon("write failed", buffer.error() ? buffer.error() : EIO);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return abandon("cannot set mode", errno);
  if (::fsync(fd) != 0) return abandon("write failed", errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: write failed: {}", path, std::strerror(error))};
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: cannot replace: {}", path, std::strerror(error))};
  }
  // The rename itself is durable once the directory is synced. A directory
  // that cannot be opened for this (unusual permissions) does not undo it.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

Status write_file_atomic(const std::string& path, std::string_view content, int mode) {
  return write_file_atomic(path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); },
                           mode);
}

}  // namespace hpn
