// Reading a file the user names, with one set of messages for every reader
// (specs, paths files, NIC maps, host profiles, wiring, port names, dumps):
//
//   PATH: no such file
//   PATH: cannot read: Permission denied        (any other open/read error)
//   PATH: is a directory, not WHAT
//   PATH: not a regular file, not WHAT          (a device or socket; a pipe is read)
//   PATH: too large for WHAT (more than N bytes)
//   PATH: binary content, not WHAT              (a NUL byte: no text format has one)
//   PATH: a pipe nothing was written to, not WHAT
//
// PATH is shown with its control bytes escaped, as every message is.
//
// A pipe or FIFO is read as a stream, and nothing waits for a writer that
// never comes: a FIFO is opened without waiting (a plain open(2) of one
// with no writer blocks until a writer opens it, forever if none does),
// and a read of a pipe with no writer returns end of file at once
// (pipe(7)). A FIFO nobody writes to therefore reads as empty and is
// refused; start its writer first. A terminal, like every other device, is
// not a file and is refused: /dev/stdin at a prompt is not read.
#pragma once

#include <cstddef>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"

namespace hpn {

// `text` safe for a terminal: control bytes (but newline and tab, when
// `keep_lines`), DEL, C1 controls and bytes that are not UTF-8 as \xNN.
std::string printable(std::string_view text, bool keep_lines = false);

// The checks above but the last two, for readers that stream the file.
Status check_input_file(const std::string& path, std::string_view what);

// The whole file, at most `max_bytes`.
Result<std::string> read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes);

// A file opened as above, as a std::istream, for readers that stream it
// (observations, send plans): after open(), the stream reads the file, or
// a pipe as its writer writes it.
class InputFileStream : public std::istream {
 public:
  InputFileStream();
  ~InputFileStream() override;
  InputFileStream(const InputFileStream&) = delete;
  InputFileStream& operator=(const InputFileStream&) = delete;
  Status open(const std::string& path, std::string_view what);

 private:
  class Buffer : public std::streambuf {
   public:
    int fd = -1;
    std::vector<char> bytes = std::vector<char>(65536);

   protected:
    int_type underflow() override;
  };
  Buffer buffer_;
};

}  // namespace hpn
