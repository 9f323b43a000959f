// RFC 4180 CSV: fields with a comma, quote or line break are quoted and their
// quotes doubled. Lines end in LF rather than RFC 4180's CRLF: every consumer
// we feed accepts it and diffs of golden files stay readable.
//
// A text field a spreadsheet would run as a formula (starting with '=', '+',
// '-', '@', a tab or a CR: an optic's part "=HYPERLINK(...)" from a spec)
// gets a leading "'", which spreadsheets take as "text" and do not show
// (OWASP, CSV Injection). Plain numbers and a lone '-' stay as they are.
// hpnctl's own CSV readers (lab wirings) read names, which never start
// with these characters (blueprint/names.h), so they need no unescaping.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hpn {

// Rows are assembled in a buffer and written whole: a sheet has hundreds of
// thousands of rows, and per-field stream insertion dominated writing them.
class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  CsvWriter& field(std::string_view text);
  CsvWriter& field(int64_t number);
  CsvWriter& null_or(int64_t number, int64_t none);  // empty field for `none`
  void end_row();
  void row(const std::vector<std::string_view>& fields);

 private:
  void flush();

  std::ostream& out_;
  std::string buffer_;
  bool first_ = true;
};

// True for a field the writer escapes as above.
bool reads_as_formula(std::string_view text);

// Splits one CSV record; quoted fields may hold commas and doubled quotes.
// Returns false on an unterminated quote.
bool parse_csv_line(std::string_view line, std::vector<std::string>& fields);

}  // namespace hpn
