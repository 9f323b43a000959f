// The diagrams as people see them: the default pod's diagrams rendered by
// Graphviz to PNG at its default 96 dpi, their size read from the PNG
// header; their layout read from `dot -Tplain` (planes left to right, ToRs
// under their hosts); the legend in the rendered SVG.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using namespace hpn::test;

// A plan and its diagrams (`export dot`), in a temporary directory.
struct Diagrams {
  TempDir dir;
  fs::path plan, out;
  nlohmann::json index;
  explicit Diagrams(const std::string& spec_args) : plan(dir / "plan"), out(dir / "diagrams") {
    auto r = run_hpnctl("plan " + spec_args + " -o " + q(plan), dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    r = run_hpnctl("export dot --blueprint " + q(plan) + " -o " + q(out), dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    index = nlohmann::json::parse(read_file(out / "diagrams.json"));
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> list;
    for (const auto& e : index["diagrams"]) list.push_back(out / e["file"].get<std::string>());
    return list;
  }
};

void require_graphviz() {
  if (run_command("command -v dot >/dev/null").exit_code != 0) skip("Graphviz's dot is not installed (graphviz)");
}

// Renders every file with one `dot` run per format (-O names the outputs FILE.FORMAT).
void render(const std::vector<fs::path>& files, const std::string& format) {
  std::string command = "dot -T" + format + " -O";
  for (const auto& f : files) command += " " + q(f);
  auto r = run_command(command + " 2>&1");
  INFO(command << "\n" << r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());  // no Graphviz warning either
}

struct PngSize {
  uint32_t width = 0, height = 0;
};

// A PNG's size from its IHDR chunk (PNG spec 11.2.2): the 8-byte signature,
// the chunk's length and type, then width and height, big-endian.
//   89 50 4E 47 0D 0A 1A 0A | 00 00 00 0D | 'I' 'H' 'D' 'R' | width(4) | height(4)
PngSize png_size(const fs::path& path) {
  std::string bytes = read_file(path);
  REQUIRE(bytes.size() >= 24);
  REQUIRE(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  REQUIRE(bytes.compare(12, 4, "IHDR") == 0);
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// A node of `dot -Tplain`: its centre and size in inches, y upwards.
struct PlainNode {
  double x = 0, y = 0, width = 0, height = 0;
};

// "node NAME X Y W H ...", NAME in double quotes when it has a space.
std::map<std::string, PlainNode> plain_nodes(const fs::path& dot) {
  auto r = run_command("dot -Tplain " + q(dot));
  REQUIRE(r.exit_code == 0);
  std::map<std::string, PlainNode> nodes;
  static const std::regex line(R"re(^node ("[^"]*"|\S+) (\S+) (\S+) (\S+) (\S+) )re");
  std::istringstream in(r.out);
  std::string text;
  std::smatch m;
  while (std::getline(in, text)) {
    if (!std::regex_search(text, m, line)) continue;
    std::string name = m[1];
    if (name.front() == '"') name = name.substr(1, name.size() - 2);
    nodes[name] = {std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), std::stod(m[5])};
  }
  return nodes;
}

// The plane a node of a diagram stands for: a ToR's from its name
// ("tor-p0-s00-r1b" is plane 2 in the default naming: side b), an overview's
// aggregation or core node from its ID ("agg-p0-plane 2"); 0 for the rest.
int plane_of(const std::string& name) {
  static const std::regex planed(R"(plane (\d+)$)");
  static const std::regex tor(R"(^tor-.*-r\d+([ab])$)");
  std::smatch m;
  if (std::regex_search(name, m, planed)) return std::stoi(m[1]);
  if (std::regex_search(name, m, tor)) return m[1] == "a" ? 1 : 2;
  return 0;
}

}  // namespace

TEST_CASE("cli/diagram: the default pod's diagrams render to PNGs of a readable size and shape",
          "[cli][diagram][default-pod]") {
  require_graphviz();
  Diagrams pod("");
  REQUIRE(pod.index["diagrams"].size() == 121);  // the overview and 15 segments x 8 rails
  std::vector<fs::path> files = pod.files();
  // And the single-ToR baseline, whose 68 hosts of a segment stand in one row of 17 racks.
  Diagrams single_tor(q(source_path("examples/baseline-single-tor.yaml")));
  for (const auto& f : single_tor.files()) {
    if (f.filename().string().rfind("segment-0-0-rail-", 0) == 0) files.push_back(f);
  }
  REQUIRE(files.size() == 121 + 8);
  render(files, "png");
  for (size_t i = 0; i < files.size(); ++i) {
    PngSize size = png_size(files[i].string() + ".png");
    double aspect = static_cast<double>(size.width) / size.height;
    INFO(files[i].filename() << ": " << size.width << " x " << size.height << " px, aspect " << aspect);
    // Before: a segment was 14,146 x 490 pt (18,862 x 654 px), aspect 29.
    // Now it fits a wide screen at 1:1, or two at half size, where the 9 pt
    // text is still legible, and no longer looks like a strip.
    CHECK(size.width <= 2600);
    CHECK(size.height <= 1400);
    CHECK(size.width >= 600);
    CHECK(aspect >= 1.0);
    CHECK(aspect <= 4.0);
  }
}

TEST_CASE("cli/diagram: planes left to right in order and ToRs under the hosts they serve", "[cli][diagram]") {
  require_graphviz();
  Diagrams lab(q(source_path("examples/lab-pod.yaml")));
  Diagrams pod("");
  std::vector<fs::path> files = lab.files();
  // The default pod's overview and one segment's rails.
  for (const auto& f : pod.files()) {
    std::string name = f.filename().string();
    if (name == "pod-0.dot" || name.rfind("segment-0-7-rail-", 0) == 0) files.push_back(f);
  }
  REQUIRE(files.size() == 5 + 9);
  for (const auto& file : files) {
    INFO(file.filename());
    auto nodes = plain_nodes(file);
    std::map<int, std::pair<double, double>> extent;  // plane -> leftmost, rightmost centre
    for (const auto& [name, n] : nodes) {
      int plane = plane_of(name);
      if (plane == 0) continue;
      auto [it, fresh] = extent.try_emplace(plane, n.x, n.x);
      it->second.first = std::min(it->second.first, n.x);
      it->second.second = std::max(it->second.second, n.x);
    }
    CHECK(extent.size() == 2);
    for (auto it = extent.begin(); std::next(it) != extent.end(); ++it) {
      INFO("plane " << it->first << " ends at x " << it->second.second << ", plane " << std::next(it)->first
                    << " starts at x " << std::next(it)->second.first);
      CHECK(it->second.second < std::next(it)->second.first);
    }
    if (file.filename().string().rfind("segment-", 0) != 0) continue;
    // A rail's ToRs sit under the top row of racks, within its width.
    double top = 0, left = 1e9, right = -1e9;
    std::vector<PlainNode> tors;
    for (const auto& [name, n] : nodes) {
      if (plane_of(name) != 0) {
        tors.push_back(n);
        continue;
      }
      top = std::max(top, n.y);
      left = std::min(left, n.x - n.width / 2);
      right = std::max(right, n.x + n.width / 2);
    }
    REQUIRE(tors.size() == 2);
    for (const auto& t : tors) {
      CHECK(t.y < top);
      CHECK(t.x > left);
      CHECK(t.x < right);
    }
  }
}

TEST_CASE("cli/diagram: every diagram has a legend of its node kinds and plane colours", "[cli][diagram]") {
  require_graphviz();
  Diagrams lab(q(source_path("examples/lab-pod.yaml")));
  std::vector<fs::path> files = lab.files();
  render(files, "svg");
  for (const auto& file : files) {
    INFO(file.filename());
    std::string svg = read_file(file.string() + ".svg");
    CHECK(svg.find(">legend:<") != std::string::npos);
    bool segment = file.filename().string().rfind("segment-", 0) == 0;
    for (const char* entry :
         segment ? std::vector<const char*>{"host rack: unit, host, ToR port", "ToR, plane 1", "ToR, plane 2",
                                            "plane 1 cables of a rack", "plane 2 cables of a rack", "backup host"}
                 : std::vector<const char*>{"segment: its hosts and ToRs", "plane 1 switches", "plane 2 switches",
                                            "plane 1 cables (count x speed)"}) {
      INFO(entry);
      CHECK(svg.find(entry) != std::string::npos);
    }
    // The legend is the graph's label, so its swatches are not among the
    // diagram's nodes: one node per rack, ToR or bundle, as diagrams.json says.
    long nodes = 0;
    const std::string node = "class=\"node\"";
    for (size_t at = svg.find(node); at != std::string::npos; at = svg.find(node, at + 1)) ++nodes;
    for (const auto& e : lab.index["diagrams"]) {
      if (e["file"] == file.filename().string()) CHECK(e["nodes"] == nodes);
    }
  }
}

TEST_CASE("cli/diagram: each host-ToR cable is in one rail's diagram, and the same plan gives the same bytes",
          "[cli][diagram]") {
  Diagrams lab(q(source_path("examples/lab-pod.yaml")));
  auto cables = run_command("sqlite3 " + q(lab.plan / "blueprint.db") +
                            " \"SELECT cable_id FROM cables WHERE kind = 'host-tor' ORDER BY rowid\"");
  REQUIRE(cables.exit_code == 0);
  std::istringstream ids(cables.out);
  std::string id;
  std::map<std::string, int> seen;
  while (std::getline(ids, id)) seen[id] = 0;
  REQUIRE(seen.size() == 64);  // 2 segments x 8 hosts x 2 NICs x 2 ports
  // A line's tooltip, a cable a line: "C0H00001 host:port - tor:port\nC0H00002 ...".
  static const std::regex cable_id(R"((?:"|\\n)(C0H\d{5}) )");
  long drawn = 0;
  for (const auto& e : lab.index["diagrams"]) {
    std::string dot = read_file(lab.out / e["file"].get<std::string>());
    for (std::sregex_iterator it(dot.begin(), dot.end(), cable_id), end; it != end; ++it) ++seen[(*it)[1].str()];
    drawn += e["cables"].get<long>();
  }
  CHECK(drawn == 64);
  for (const auto& [cable, times] : seen) {
    INFO(cable);
    CHECK(times == 1);
  }
  Diagrams again(q(source_path("examples/lab-pod.yaml")));
  for (const auto& e : lab.index["diagrams"]) {
    INFO(e["file"]);
    CHECK(read_file(again.out / e["file"].get<std::string>()) == read_file(lab.out / e["file"].get<std::string>()));
  }
}
