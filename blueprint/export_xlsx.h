// The cabling workbook (XLSX, written with libxlsxwriter): what a cabling
// crew works from. One sheet per segment (its host cables: back end and
// front end) and one "uplinks" sheet (ToR-aggregation, aggregation-core);
// each row a cable with both ends' device, port, rack and unit, the medium,
// estimated length and the stocked cord, the labels, and a column ready for
// a flag-label printer, under cabling.csv's column names. The header row is
// frozen and filtered; printed, a sheet is landscape, one page wide, with the
// header row repeated on every page. The file is byte-identical run to run
// (the workbook's creation time is fixed).
#pragma once

#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

struct CablingSheet {
  std::string name;         // "segment P-S" or "uplinks"
  std::vector<int> cables;  // plan order
};

// The sheets the selected cables fall on, in order: segments ascending,
// then the uplinks. Every cable is on exactly one sheet; empty sheets are left out.
std::vector<CablingSheet> cabling_sheets(const Blueprint& bp, const std::vector<int>& cables);

// The printer column: "ID", then one line per end, "A device:port rack U"
// and "Z device:port rack U".
std::string printer_label(const Blueprint& bp, const Cable& cable);

// Writes the workbook to `path` (a temporary file beside it, renamed into place).
Status write_cabling_workbook(const Blueprint& bp, const std::vector<CablingSheet>& sheets, const std::string& path);

}  // namespace hpn
