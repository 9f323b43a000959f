#include "blueprint/diagram_style.h"

#include <fmt/format.h>

#include <iterator>

#include "blueprint/model.h"

namespace hpn {

std::string dot_id(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '\n') {
      s += "\\n";  // a line break in a label
      continue;
    }
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  s += '"';
  return s;
}

std::string html_text(std::string_view text) {
  std::string s;
  for (char c : text) {
    switch (c) {
      case '&':
        s += "&amp;";
        break;
      case '<':
        s += "&lt;";
        break;
      case '>':
        s += "&gt;";
        break;
      case '"':
        s += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) s += c;
    }
  }
  return s;
}

const char* plane_color(int plane) {
  // Tableau 10 in its own order, so planes 1 and 2 keep the colours the
  // diagrams have always had.
  static const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};
  if (plane < 1) return "#7f7f7f";
  return kPalette[(plane - 1) % std::size(kPalette)];
}

std::string plane_name(int plane) { return plane == kNone ? "no plane" : fmt::format("plane {}", plane); }

std::string heading_with_legend(std::string_view title, const std::vector<LegendEntry>& legend) {
  std::string row;
  for (const auto& e : legend) {
    std::string color = html_text(e.color);
    switch (e.swatch) {
      case LegendEntry::Swatch::box:
        row += fmt::format("<td border=\"2\" color=\"{}\" bgcolor=\"white\">&#160;&#160;&#160;&#160;</td>", color);
        break;
      case LegendEntry::Swatch::filled_box:
        row += fmt::format("<td border=\"1\" bgcolor=\"{}\">&#160;&#160;&#160;&#160;</td>", color);
        break;
      case LegendEntry::Swatch::line:
        row += fmt::format("<td><font color=\"{}\"><b>&#8212;&#8212;</b></font></td>", color);
        break;
      case LegendEntry::Swatch::dashed_line:
        row += fmt::format("<td><font color=\"{}\"><b>- - -</b></font></td>", color);
        break;
    }
    row += fmt::format("<td align=\"left\">{}&#160;&#160;</td>", html_text(e.text));
  }
  // The legend a table of its own, so a title wider than it does not stretch its cells.
  return fmt::format(
      "<<table border=\"0\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"2\">"
      "<tr><td align=\"left\"><font point-size=\"20\">{}</font></td></tr>"
      "<tr><td align=\"left\"><table border=\"0\" cellborder=\"0\" cellspacing=\"2\" cellpadding=\"2\">"
      "<tr><td align=\"left\"><b>legend:</b></td>{}</tr></table></td></tr></table>>",
      html_text(title), row);
}

std::string bundle_label(const std::map<int, int>& count_by_speed) {
  std::string label;
  for (auto it = count_by_speed.rbegin(); it != count_by_speed.rend(); ++it) {
    if (!label.empty()) label += " + ";
    label += fmt::format("{} x {}G", it->second, it->first);
  }
  return label;
}

}  // namespace hpn
