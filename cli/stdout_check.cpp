#include "cli/stdout_check.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpn::cli {

StdoutCheck::StdoutCheck() : saved_(std::cout.rdbuf()), line_by_line_(::isatty(STDOUT_FILENO) == 1) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  std::cout.rdbuf(this);
}

StdoutCheck::~StdoutCheck() {
  drain();
  std::cout.rdbuf(saved_);
}

int StdoutCheck::finish() {
  drain();
  return error_;
}

bool StdoutCheck::drain() {
  const char* p = pbase();
  // After a failure nothing more is written: what follows would be a
  // stream with a hole in it.
  while (error_ == 0 && p < pptr()) {
    const ssize_t n = ::write(STDOUT_FILENO, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    p += n;
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

StdoutCheck::int_type StdoutCheck::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    if (line_by_line_ && traits_type::to_char_type(c) == '\n' && !drain()) return traits_type::eof();
  }
  return traits_type::not_eof(c);
}

std::streamsize StdoutCheck::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    if (pptr() == epptr() && !drain()) return done;
    const std::streamsize room = epptr() - pptr();
    const std::streamsize take = std::min(room, n - done);
    std::memcpy(pptr(), s + done, static_cast<size_t>(take));
    pbump(static_cast<int>(take));
    done += take;
  }
  if (line_by_line_ && std::memchr(s, '\n', static_cast<size_t>(n)) != nullptr && !drain()) return done;
  return done;
}

int StdoutCheck::sync() { return drain() ? 0 : -1; }

}  // namespace hpn::cli
