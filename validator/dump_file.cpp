#include "validator/dump_file.h"

#include "blueprint/input_file.h"
#include "blueprint/json_shape.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace hpn::validator {

Result<DumpSource> parse_dump_argument(std::string_view argument, std::string_view option) {
  DumpSource s;
  size_t eq = argument.find('=');
  if (eq != std::string_view::npos && argument.substr(0, eq).find('/') == std::string_view::npos) {
    s.device = std::string(argument.substr(0, eq));
    s.path = std::string(argument.substr(eq + 1));
    if (s.device.empty() || s.path.empty()) {
      return Error{fmt::format("{} '{}': expected DEVICE=FILE or FILE", option, argument)};
    }
    return s;
  }
  s.path = std::string(argument);
  std::string_view base = argument.substr(argument.rfind('/') == std::string_view::npos ? 0 : argument.rfind('/') + 1);
  if (base.ends_with(".json")) base.remove_suffix(5);
  if (base.empty() || base == "." || base == "..") {
    return Error{fmt::format("{} '{}': no device name in the file name; give it as DEVICE=FILE", option, argument)};
  }
  s.device = std::string(base);
  s.device_from_file_name = true;
  return s;
}

Result<std::string> read_dump_bytes(const std::string& path, std::string_view what) {
  return read_input_file(path, what, kMaxDumpBytes);
}

Status check_dump_shape(std::string_view bytes, std::string_view source, std::string_view what) {
  if (bytes.size() > kMaxDumpBytes) {
    return Error{fmt::format("{}: too large for {} (more than {} bytes)", source, what, kMaxDumpBytes)};
  }
  return check_json_bounds(bytes, source, {kMaxDumpDepth, kMaxDumpValues, what});
}

Error not_json(std::string_view bytes, std::string_view source, size_t byte, const std::string& what) {
  size_t end = byte == 0 || byte > bytes.size() ? bytes.size() : byte - 1;
  int line = 1, column = 1;
  for (size_t i = 0; i < end; ++i) {
    if (bytes[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  // what(): "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
  std::string reason = what;
  if (size_t c = reason.find("column "); c != std::string::npos) {
    if (size_t colon = reason.find(": ", c); colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  return Error{fmt::format("{}:{}:{}: not JSON: {}", source, line, column, reason)};
}

int resolve_device(const FabricIndex& f, const std::string& name) {
  int d = f.device_by_name(name);
  if (d < 0 && name.find('.') != std::string::npos) d = f.device_by_name(name.substr(0, name.find('.')));
  return d;
}

Error unknown_dump_device(const std::string& source, const std::string& device, bool from_file_name,
                          std::string_view option) {
  return Error{fmt::format("{}: device '{}'{} is not in the blueprint{}", source, device,
                           from_file_name ? " (from the file name)" : "",
                           from_file_name ? fmt::format("; name it with {} DEVICE=FILE", option) : "")};
}

}  // namespace hpn::validator
