#include "blueprint/text_table.h"

#include <algorithm>

namespace hpn {
namespace {

bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == ':' || c == '-' || c == ',';
  }) && s.front() != '-';
}

}  // namespace

void TextTable::render(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> width(header_.size(), 0);
  std::vector<bool> numeric(header_.size(), true);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
      if (!row[c].empty() && !looks_numeric(row[c])) numeric[c] = false;
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      if (c) text += "  ";
      text += numeric[c] ? pad + cell : cell + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line(header_);
  for (const auto& row : rows_) line(row);
}

std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace hpn
