// Reading a file the user names, with one set of messages for every reader
// (specs, paths files, NIC maps, host profiles, wiring, port names, dumps):
//
//   PATH: no such file
//   PATH: cannot read: Permission denied        (any other open/read error)
//   PATH: is a directory, not WHAT
//   PATH: not a regular file, not WHAT          (a device or socket; a pipe is read)
//   PATH: too large for WHAT (more than N bytes)
//   PATH: binary content, not WHAT              (a NUL byte: no text format has one)
//
// PATH is shown with its control bytes escaped, as every message is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "blueprint/result.h"

namespace hpn {

// `text` safe for a terminal: control bytes (but newline and tab, when
// `keep_lines`), DEL, C1 controls and bytes that are not UTF-8 as \xNN.
std::string printable(std::string_view text, bool keep_lines = false);

// The checks above but the last two, for readers that stream the file.
Status check_input_file(const std::string& path, std::string_view what);

// The whole file, at most `max_bytes`.
Result<std::string> read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes);

}  // namespace hpn
