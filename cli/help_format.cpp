#include "cli/help_format.h"

#include <sstream>

namespace hpn::cli {

std::string wrap_words(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream lines(text);
  bool first_line = true;
  for (std::string line; std::getline(lines, line);) {
    if (!first_line) out += '\n';
    first_line = false;
    // Keep the line's own indent on every piece of it.
    const std::size_t indent = line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ');
    std::istringstream words(line.substr(indent));
    std::string current(indent, ' ');
    bool empty = true;
    for (std::string word; words >> word;) {
      if (!empty && current.size() + 1 + word.size() > width) {
        out += current + '\n';
        current = std::string(indent, ' ');
        empty = true;
      }
      current += (empty ? "" : " ") + word;
      empty = false;
    }
    out += current;
  }
  return out;
}

std::string WrappingFormatter::make_option_desc(const CLI::Option* option) const {
  const std::size_t room = kHelpWidth > get_column_width() + 10 ? kHelpWidth - get_column_width() : 40;
  return wrap_words(CLI::Formatter::make_option_desc(option), room);
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  const std::size_t room = kHelpWidth > get_column_width() + 10 ? kHelpWidth - get_column_width() : 40;
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true), wrap_words(sub->get_description(), room),
                           get_column_width());
  return out.str();
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = CLI::Formatter::make_footer(app);
  return footer.empty() ? footer : wrap_words(footer, kHelpWidth) + (footer.back() == '\n' ? "\n" : "");
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_description(app);
  return text.empty() ? text : wrap_words(text, kHelpWidth) + (text.back() == '\n' ? "\n" : "");
}

}  // namespace hpn::cli
