#include "blueprint/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace hpn {

std::string format_diagnostic(std::string_view source_name, std::string_view source_text,
                              SourceLocation where, std::string_view message) {
  if (where.line <= 0) return fmt::format("{}: {}\n", source_name, message);
  std::string out = fmt::format("{}:{}:{}: {}\n", source_name, where.line, where.column, message);
  size_t start = 0;
  for (int line = 1; line < where.line && start != std::string_view::npos; ++line) {
    start = source_text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start > source_text.size()) return out;
  size_t end = source_text.find('\n', start);
  std::string_view text = source_text.substr(start, end == std::string_view::npos ? end : end - start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  // A line too long to read (a minified or hostile file) is shown as the
  // stretch around the column, marked with "...", the caret still under it.
  constexpr size_t kMaxShown = 120;
  size_t column = where.column > 0 ? static_cast<size_t>(where.column - 1) : 0;
  std::string lead, tail;
  if (text.size() > kMaxShown) {
    size_t from = std::min(column > kMaxShown / 2 ? column - kMaxShown / 2 : 0, text.size() - kMaxShown);
    if (from > 0) lead = "...";
    if (from + kMaxShown < text.size()) tail = "...";
    text = text.substr(from, kMaxShown);
    column -= std::min(column, from);
  }
  out += fmt::format("{}{}{}\n", lead, text, tail);
  // Keep tabs in the caret line so the caret lines up under tab-indented text.
  std::string caret(lead.size(), ' ');
  for (size_t i = 0; i < column && i < text.size(); ++i) caret += text[i] == '\t' ? '\t' : ' ';
  out += caret + "^\n";
  return out;
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace hpn
