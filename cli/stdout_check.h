// Output that cannot be written fails the run. Every command prints through
// std::cout; StdoutCheck puts a buffer of its own under it for the run,
// which writes to descriptor 1 with write(2) and keeps the first error
// (ENOSPC on a full disk or /dev/full, EFBIG past a file size limit, EIO).
// main() asks once, after the command: the error is reported there as exit
// 3 naming stdout, instead of a success with the output cut short.
//
// Order with stderr is kept: std::cerr is tied to std::cout (flushed before
// each error line), and on a terminal each line goes out as it ends.
#pragma once

#include <array>
#include <iostream>
#include <streambuf>

namespace hpn::cli {

class StdoutCheck : public std::streambuf {
 public:
  StdoutCheck();
  ~StdoutCheck() override;  // flushes, and gives std::cout its own buffer back
  StdoutCheck(const StdoutCheck&) = delete;
  StdoutCheck& operator=(const StdoutCheck&) = delete;

  // Flushes; 0 when everything written so far reached descriptor 1, else
  // the errno of the first write that failed.
  int finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool drain();

  std::streambuf* saved_;
  bool line_by_line_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace hpn::cli
