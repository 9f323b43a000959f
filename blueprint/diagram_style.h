// What every diagram of a plan shares: DOT and HTML-label quoting, the plane
// colours, and the heading with its legend.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hpn {

// A DOT ID in double quotes; '\n' becomes a line break, other control bytes go.
std::string dot_id(std::string_view text);

// Text for a Graphviz HTML-like label: & < > " escaped, control bytes dropped.
std::string html_text(std::string_view text);

// Plane 1 blue, plane 2 red (Tableau 10), other planes from the same
// palette, no plane grey: one colour per plane in every diagram and legend.
const char* plane_color(int plane);

// A bundle of cables by speed, fastest first: "480 x 400G", or
// "240 x 400G + 8 x 200G" when speeds differ.
std::string bundle_label(const std::map<int, int>& count_by_speed);

// "plane 2", or "no plane".
std::string plane_name(int plane);

// One entry of a legend: a swatch drawn as the diagram draws that thing, and
// what it means.
struct LegendEntry {
  enum class Swatch { box, filled_box, line, dashed_line };
  Swatch swatch = Swatch::box;
  std::string color;  // the border, fill or line colour
  std::string text;
};

// The graph's label (`label=<...>`): the title on top and below it a row
// "legend: <swatch> text ...". Being the graph's label, not a node, the
// legend adds nothing to the node count and cannot be laid out among them.
std::string heading_with_legend(std::string_view title, const std::vector<LegendEntry>& legend);

}  // namespace hpn
