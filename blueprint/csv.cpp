#include "blueprint/csv.h"

#include <fmt/format.h>

namespace hpn {

CsvWriter::~CsvWriter() { flush(); }

void CsvWriter::flush() {
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

bool reads_as_formula(std::string_view text) {
  if (text.empty()) return false;
  const char c = text.front();
  if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
  if (c == '-' || c == '+') {
    // A lone sign (hpnctl's "none") or a plain number: what a spreadsheet
    // shows as it is. "-2+3+cmd|..." is neither.
    std::string_view rest = text.substr(1);
    bool digit = false, point = false;
    for (char d : rest) {
      if (d >= '0' && d <= '9') {
        digit = true;
      } else if (d == '.' && !point) {
        point = true;
      } else {
        return true;
      }
    }
    return !rest.empty() && !digit;
  }
  return true;
}

CsvWriter& CsvWriter::field(std::string_view text) {
  if (!first_) buffer_ += ',';
  first_ = false;
  std::string escaped;
  if (reads_as_formula(text)) {
    escaped = "'" + std::string(text);
    text = escaped;
  }
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    buffer_.append(text);
    return *this;
  }
  buffer_ += '"';
  for (char c : text) {
    if (c == '"') buffer_ += '"';
    buffer_ += c;
  }
  buffer_ += '"';
  return *this;
}

CsvWriter& CsvWriter::field(int64_t number) {
  if (!first_) buffer_ += ',';
  first_ = false;
  fmt::format_int text(number);
  buffer_.append(text.data(), text.size());
  return *this;
}

CsvWriter& CsvWriter::null_or(int64_t number, int64_t none) {
  if (number == none) return field(std::string_view{});
  return field(number);
}

void CsvWriter::end_row() {
  buffer_ += '\n';
  first_ = true;
  if (buffer_.size() > (1 << 16)) flush();
}

void CsvWriter::row(const std::vector<std::string_view>& fields) {
  for (auto f : fields) field(f);
  end_row();
}

bool parse_csv_line(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string current;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          current += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        current += c;
      }
    } else if (c == '"' && current.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (quoted) return false;
  fields.push_back(std::move(current));
  return true;
}

}  // namespace hpn
