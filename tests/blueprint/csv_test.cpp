#include <catch2/catch.hpp>

#include <sstream>

#include "blueprint/csv.h"

TEST_CASE("blueprint/csv: fields that need it are quoted, and parse back") {
  std::ostringstream out;
  {
    hpn::CsvWriter w(out);
    w.field("plain").field("a,b").field("say \"hi\"").field(int64_t{-42}).null_or(7, 7).end_row();
  }
  CHECK(out.str() == "plain,\"a,b\",\"say \"\"hi\"\"\",-42,\n");
  std::vector<std::string> fields;
  REQUIRE(hpn::parse_csv_line("plain,\"a,b\",\"say \"\"hi\"\"\",-42,\r", fields));
  CHECK(fields == std::vector<std::string>{"plain", "a,b", "say \"hi\"", "-42", ""});
  CHECK_FALSE(hpn::parse_csv_line("\"unterminated,x", fields));
}

// OWASP, CSV Injection: a cell that starts with '=', '+', '-', '@', a tab
// or a CR is a formula to a spreadsheet; it gets a leading "'". Numbers and
// hpnctl's "-" for none stay as they are.
TEST_CASE("blueprint/csv: cells a spreadsheet would run are escaped, numbers and a lone '-' are not") {
  std::ostringstream out;
  {
    hpn::CsvWriter w(out);
    w.row({"=HYPERLINK(\"http://x\",\"y\")", "@SUM(A1)", "+1+cmd|' /C calc'!A0", "-2+3", "\tx", "-", "-12", "+3.5",
           "-0.5", "QSFP56-200G-SR4", "a=b"});
  }
  CHECK(out.str() ==
        "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'@SUM(A1),'+1+cmd|' /C calc'!A0,'-2+3,'\tx,-,-12,+3.5,-0.5,"
        "QSFP56-200G-SR4,a=b\n");
  std::vector<std::string> fields;
  REQUIRE(hpn::parse_csv_line(out.str().substr(0, out.str().size() - 1), fields));
  CHECK(fields[0] == "'=HYPERLINK(\"http://x\",\"y\")");
  CHECK(fields[5] == "-");
}
