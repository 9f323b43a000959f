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
