#include "blueprint/csv.h"

namespace hpn {

CsvWriter& CsvWriter::field(std::string_view text) {
  if (!first_) out_ << ',';
  first_ = false;
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out_ << text;
    return *this;
  }
  out_ << '"';
  for (char c : text) {
    if (c == '"') out_ << '"';
    out_ << c;
  }
  out_ << '"';
  return *this;
}

CsvWriter& CsvWriter::field(int64_t number) {
  if (!first_) out_ << ',';
  first_ = false;
  out_ << number;
  return *this;
}

CsvWriter& CsvWriter::null_or(int64_t number, int64_t none) {
  if (number == none) return field(std::string_view{});
  return field(number);
}

void CsvWriter::end_row() {
  out_ << '\n';
  first_ = true;
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
