#include "blueprint/export_xlsx.h"

#include <fmt/format.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "blueprint/atomic_file.h"

namespace hpn {

namespace fs = std::filesystem;

std::vector<CablingSheet> cabling_sheets(const Blueprint& bp, const std::vector<int>& cables) {
  std::map<std::pair<int, int>, std::vector<int>> segments;
  CablingSheet uplinks{"uplinks", {}};
  for (int i : cables) {
    const Cable& c = bp.cables[i];
    const Device& a = bp.devices[c.a_device];
    // Cables are stored lower tier first: a host at the a-end makes it a segment's cable.
    if (a.role == Role::host && a.pod != kNone && a.segment != kNone) {
      segments[{a.pod, a.segment}].push_back(i);
    } else {
      uplinks.cables.push_back(i);
    }
  }
  std::vector<CablingSheet> sheets;
  for (auto& [key, list] : segments) {
    sheets.push_back({fmt::format("segment {}-{}", key.first, key.second), std::move(list)});
  }
  if (!uplinks.cables.empty()) sheets.push_back(std::move(uplinks));
  return sheets;
}

namespace {

std::string rack_of(const Blueprint& bp, const Device& d) { return d.rack == kNone ? "" : bp.racks[d.rack].name; }

std::string end_line(const Blueprint& bp, char side, int device, const std::string& port) {
  const Device& d = bp.devices[device];
  std::string line = fmt::format("{} {}:{}", side, d.name, port);
  if (d.rack != kNone) line += " " + bp.racks[d.rack].name;
  if (d.ru != kNone) line += fmt::format(" U{}", d.ru);
  return line;
}

// cabling.csv's names for the same columns (planner/plan_output.h), so a
// reader keyed by header name reads both, and the printer's label.
const std::vector<std::string>& columns() {
  static const std::vector<std::string> kColumns{
      "cable_id", "kind",   "state",  "a_device", "a_port",     "a_rack",     "a_ru",
      "z_device", "z_port", "z_rack", "z_ru",     "media",      "speed_gbps", "length_m",
      "stock_length_m", "label_a", "label_z", "label_printer"};
  return kColumns;
}

// Column widths in characters, from the longest line of each column (header
// included), capped so that a long label does not push the sheet off screen.
class Widths {
 public:
  explicit Widths(size_t n) : w_(n, 0) {}
  void fit(size_t col, std::string_view text) {
    size_t longest = 0;
    for (size_t start = 0; start <= text.size();) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      longest = std::max(longest, end - start);
      start = end + 1;
    }
    w_[col] = std::max(w_[col], std::min<size_t>(longest, 72));
  }
  double operator[](size_t col) const { return static_cast<double>(w_[col]) + 2; }

 private:
  std::vector<size_t> w_;
};

// libxlsxwriter reports errors as codes; the first one is kept with where it happened.
struct SheetWriter {
  lxw_worksheet* ws;
  lxw_format* wrap;
  Widths widths{columns().size()};
  lxw_error error = LXW_NO_ERROR;

  void text(lxw_row_t row, lxw_col_t col, const std::string& value, lxw_format* format = nullptr) {
    widths.fit(col, value);
    if (value.empty()) return;
    lxw_error e = worksheet_write_string(ws, row, col, value.c_str(), format);
    if (error == LXW_NO_ERROR) error = e;
  }
  void number(lxw_row_t row, lxw_col_t col, int64_t value) {
    if (value == kNone) return;
    widths.fit(col, std::to_string(value));
    lxw_error e = worksheet_write_number(ws, row, col, static_cast<double>(value), nullptr);
    if (error == LXW_NO_ERROR) error = e;
  }
};

}  // namespace

std::string printer_label(const Blueprint& bp, const Cable& c) {
  return fmt::format("{}\n{}\n{}", c.id, end_line(bp, 'A', c.a_device, c.a_port),
                     end_line(bp, 'Z', c.z_device, c.z_port));
}

Status write_cabling_workbook(const Blueprint& bp, const std::vector<CablingSheet>& sheets, const std::string& path) {
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) return Error{fmt::format("{}: is a directory; name the file to write", path)};
  fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // libxlsxwriter opens its file by name: it makes it in a directory of our
  // own (mkdtemp, 0700) beside the target, and write_file_atomic() puts the
  // bytes in place, with its rules on what may be replaced.
  std::string own = (parent / fmt::format(".{}.tmp-XXXXXX", target.filename().string())).string();
  if (::mkdtemp(own.data()) == nullptr) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  struct RemoveAll {
    fs::path dir;
    ~RemoveAll() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } remove_own{own};
  fs::path temp = fs::path(own) / "cabling.xlsx";
  std::string tmpdir = own;
  lxw_workbook_options options{};
  // Rows go to disk as they are written (inline strings, no shared-string
  // table): a pod is 52,080 rows, and the in-memory mode took seconds on it.
  options.constant_memory = 1;
  options.tmpdir = tmpdir.data();  // beside the target: the same disk, not a small /tmp
  options.use_zip64 = 0;
  lxw_workbook* wb = workbook_new_opt(temp.c_str(), &options);
  if (!wb) return Error{fmt::format("{}: cannot create the workbook", temp.string())};

  std::string title = fmt::format("Cabling of {}", bp.spec_name);
  std::string author = fmt::format("hpnctl {}", bp.tool_version);
  lxw_doc_properties properties{};
  properties.title = title.data();
  properties.author = author.data();
  // A fixed creation time (2000-01-01T00:00:00Z): the same plan gives the same bytes.
  properties.created = 946684800;
  workbook_set_properties(wb, &properties);

  lxw_format* header = workbook_add_format(wb);
  format_set_bold(header);
  format_set_bottom(header, LXW_BORDER_THIN);
  lxw_format* wrap = workbook_add_format(wb);
  format_set_text_wrap(wrap);

  lxw_error error = LXW_NO_ERROR;
  std::string where;
  for (const auto& sheet : sheets) {
    lxw_worksheet* ws = workbook_add_worksheet(wb, sheet.name.c_str());
    if (!ws) {
      error = LXW_ERROR_SHEETNAME_ALREADY_USED;
      where = sheet.name;
      break;
    }
    SheetWriter w{ws, wrap};
    for (size_t col = 0; col < columns().size(); ++col) w.text(0, static_cast<lxw_col_t>(col), columns()[col], header);
    lxw_row_t row = 1;
    for (int i : sheet.cables) {
      const Cable& c = bp.cables[i];
      const Device& a = bp.devices[c.a_device];
      const Device& z = bp.devices[c.z_device];
      w.text(row, 0, c.id);
      w.text(row, 1, std::string(to_string(c.kind)));
      w.text(row, 2, std::string(to_string(c.state)));
      w.text(row, 3, a.name);
      w.text(row, 4, c.a_port);
      w.text(row, 5, rack_of(bp, a));
      w.number(row, 6, a.ru);
      w.text(row, 7, z.name);
      w.text(row, 8, c.z_port);
      w.text(row, 9, rack_of(bp, z));
      w.number(row, 10, z.ru);
      w.text(row, 11, c.media);
      w.number(row, 12, c.speed_gbps);
      w.number(row, 13, c.length_m);
      if (!c.patched()) w.number(row, 14, c.stock_length_m);  // a patched run: a cord per leg, in legs.csv
      w.text(row, 15, cable_label(bp, c, true));
      w.text(row, 16, cable_label(bp, c, false));
      w.text(row, 17, printer_label(bp, c), wrap);
      ++row;
    }
    for (size_t col = 0; col < columns().size(); ++col) {
      auto n = static_cast<lxw_col_t>(col);
      worksheet_set_column(ws, n, n, w.widths[col], nullptr);
    }
    worksheet_freeze_panes(ws, 1, 0);
    // Printed for the crew: landscape, every page as wide as the sheet (as
    // many pages down as it takes), the header row on top of each page.
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    if (lxw_error e = worksheet_repeat_rows(ws, 0, 0); e != LXW_NO_ERROR && w.error == LXW_NO_ERROR) w.error = e;
    worksheet_autofilter(ws, 0, 0, row - 1, static_cast<lxw_col_t>(columns().size() - 1));
    if (w.error != LXW_NO_ERROR) {
      error = w.error;
      where = sheet.name;
      break;
    }
  }
  lxw_error closed = workbook_close(wb);  // frees the workbook whatever happened
  if (error == LXW_NO_ERROR) error = closed;
  if (error != LXW_NO_ERROR) {
    return Error{fmt::format("{}: cannot write the workbook{}: {}", path, where.empty() ? "" : " (sheet " + where + ")",
                             lxw_strerror(error))};
  }
  std::ifstream made(temp, std::ios::binary);
  if (!made) return Error{fmt::format("{}: cannot read: {}", temp.string(), std::strerror(errno))};
  return write_file_atomic(path, [&](std::ostream& out) {
    out << made.rdbuf();
    if (made.bad()) out.setstate(std::ios::badbit);
  });
}

}  // namespace hpn
