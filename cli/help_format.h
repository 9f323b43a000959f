// `--help` within 80 columns: CLI11's formatter with the descriptions of
// options and commands wrapped at word boundaries to the space right of
// the name column. Set on the root app before the commands are added
// (subcommands copy their parent's formatter when they are made).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace hpn::cli {

inline constexpr std::size_t kHelpWidth = 80;

// `text` broken into lines of at most `width` characters at spaces (a word
// longer than that stays whole), the lines joined by '\n'; its own line
// breaks are kept.
std::string wrap_words(const std::string& text, std::size_t width);

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_description(const CLI::App* app) const override;
};

}  // namespace hpn::cli
