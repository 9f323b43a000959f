#include "blueprint/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpn {

namespace {

// Length of the valid UTF-8 sequence at s[i] that is not a C1 control, or 0.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || c > 0xf4 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  }
  if (c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) return 0;  // U+0080..U+009F
  if (c == 0xe0 && static_cast<unsigned char>(s[i + 1]) < 0xa0) return 0;  // overlong
  if (c == 0xf0 && static_cast<unsigned char>(s[i + 1]) < 0x90) return 0;  // overlong
  if (c == 0xf4 && static_cast<unsigned char>(s[i + 1]) > 0x8f) return 0;  // past U+10FFFF
  if (c == 0xed && static_cast<unsigned char>(s[i + 1]) > 0x9f) return 0;  // surrogates
  return n;
}

std::string shown(const std::string& path) { return printable(path); }

Error open_error(const std::string& path, int err) {
  if (err == ENOENT) return Error{shown(path) + ": no such file"};
  return Error{fmt::format("{}: cannot read: {}", shown(path), std::strerror(err))};
}

}  // namespace

std::string printable(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (keep_lines && (c == '\n' || c == '\t')) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = c >= 0x80 ? utf8_length(s, i) : 0; n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

Status check_input_file(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return open_error(path, errno);
  if (S_ISDIR(st.st_mode)) return Error{fmt::format("{}: is a directory, not {}", shown(path), what)};
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    return Error{fmt::format("{}: not a regular file, not {}", shown(path), what)};
  }
  return {};
}

namespace {

// open(2) that never waits for a FIFO's writer; see the header.
Result<int> open_input(const std::string& path, std::string_view what, bool& pipe) {
  if (auto st = check_input_file(path, what); !st) return st.error();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return open_error(path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
    // Swapped for something else between the check and the open.
    ::close(fd);
    return Error{fmt::format("{}: not a regular file, not {}", shown(path), what)};
  }
  pipe = S_ISFIFO(st.st_mode);
  // Reads block again (a pipe's writer is waited for while it lives).
  if (const int flags = ::fcntl(fd, F_GETFL); flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(fd);
    return open_error(path, err);
  }
  return fd;
}

Error empty_pipe(const std::string& path, std::string_view what) {
  return Error{fmt::format("{}: a pipe nothing was written to, not {} (is its writer running?)", shown(path), what)};
}

}  // namespace

Result<std::string> read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  bool pipe = false;
  auto opened = open_input(path, what, pipe);
  if (!opened) return opened.error();
  const int fd = opened.value();
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return open_error(path, err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return Error{fmt::format("{}: too large for {} (more than {} bytes)", shown(path), what, max_bytes)};
    }
  }
  ::close(fd);
  if (pipe && text.empty()) return empty_pipe(path, what);
  if (text.find('\0') != std::string::npos) return Error{fmt::format("{}: binary content, not {}", shown(path), what)};
  return text;
}

InputFileStream::InputFileStream() : std::istream(&buffer_) { setstate(std::ios::badbit); }

InputFileStream::~InputFileStream() {
  if (buffer_.fd >= 0) ::close(buffer_.fd);
}

Status InputFileStream::open(const std::string& path, std::string_view what) {
  bool pipe = false;
  auto opened = open_input(path, what, pipe);
  if (!opened) return opened.error();
  buffer_.fd = opened.value();
  clear();
  // A pipe's first byte, waited for here: none at all is the error above.
  if (pipe && peek() == traits_type::eof()) return empty_pipe(path, what);
  return {};
}

InputFileStream::Buffer::int_type InputFileStream::Buffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  for (;;) {
    const ssize_t n = ::read(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return traits_type::eof();  // an error reads as the end; the reader's checks follow
    setg(bytes.data(), bytes.data(), bytes.data() + n);
    return traits_type::to_int_type(*gptr());
  }
}

}  // namespace hpn
