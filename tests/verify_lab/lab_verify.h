// The lab pods' cabling sheet as a wiring to edit, and verify --lab run on
// it: shared by the verify --lab tests.
#pragma once

#include <catch2/catch.hpp>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "blueprint/csv.h"
#include "test_util.h"

namespace hpn::test {

using Row = std::map<std::string, std::string>;

// Skips the test (skip(): the process ends, exit 77) unless a lab can come
// up here: root and network namespaces.
inline void require_lab() {
  if (geteuid() != 0) skip("the lab needs root (network namespaces)");
  if (std::system("ip netns list >/dev/null 2>&1") != 0) skip("network namespaces are not available here");
}

struct Sheet {
  std::vector<std::string> header;
  std::vector<Row> rows;

  Row& row(const std::string& a_device, const std::string& a_port) {
    for (auto& r : rows) {
      if (r["a_device"] == a_device && r["a_port"] == a_port) return r;
    }
    FAIL("no cable from " << a_device << ":" << a_port);
    return rows.front();
  }
  std::string text() const {
    std::string out;
    for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
    out += "\n";
    for (const auto& r : rows) {
      for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + (r.count(header[i]) ? r.at(header[i]) : "");
      out += "\n";
    }
    return out;
  }
};

class LabVerify {
 public:
  explicit LabVerify(const std::string& spec = "examples/lab-pod.yaml") {
    auto r = hpn::test::run_hpnctl("plan '" + hpn::test::source_path(spec).string() + "' -q -o plan",
                                   dir_.path());
    REQUIRE(r.exit_code == 0);
    std::istringstream in(hpn::test::read_file(dir_ / "plan" / "cabling.csv"));
    std::string line;
    std::vector<std::string> fields;
    std::getline(in, line);
    REQUIRE(hpn::parse_csv_line(line, sheet_.header));
    sheet_.header.push_back("fault");
    while (std::getline(in, line)) {
      REQUIRE(hpn::parse_csv_line(line, fields));
      Row row;
      for (size_t i = 0; i < fields.size(); ++i) row[sheet_.header[i]] = fields[i];
      sheet_.rows.push_back(row);
    }
  }

  Sheet& sheet() { return sheet_; }
  const TempDir& dir() const { return dir_; }
  hpn::test::RunResult hpnctl(const std::string& args) const { return hpn::test::run_hpnctl(args, dir_.path()); }

  // The plan's lab, up for the guard's lifetime.
  class Up {
   public:
    explicit Up(const LabVerify& lab) : lab_(lab) { REQUIRE(lab.hpnctl("lab up --blueprint plan").exit_code == 0); }
    ~Up() { lab_.hpnctl("lab down"); }
    Up(const Up&) = delete;
    Up& operator=(const Up&) = delete;

   private:
    const LabVerify& lab_;
  };

  // Runs verify --lab on the sheet as it now is (`options` added to its
  // command line); the JSON report.
  nlohmann::json run(int expect_exit, const std::string& options = "") {
    hpn::test::write_file(dir_ / "wiring.csv", sheet_.text());
    auto r = hpn::test::run_hpnctl("verify --lab --blueprint plan --wiring wiring.csv --format json" + options,
                                   dir_.path());
    INFO(r.err);
    if (r.exit_code != expect_exit) {
      // The report says what verify saw: its findings are the reason.
      INFO("the report: " << r.out.substr(0, 16000));
      REQUIRE(r.exit_code == expect_exit);
    }
    return nlohmann::json::parse(r.out);
  }

 private:
  TempDir dir_;
  Sheet sheet_;
};

inline void check_one(const nlohmann::json& report, const std::string& kind, std::set<std::string> cables) {
  INFO(report.dump(2));
  REQUIRE(report["findings"].size() == 1);
  const auto& f = report["findings"][0];
  CHECK(f["kind"] == kind);
  std::set<std::string> got;
  for (const auto& c : f["cables"]) got.insert(c.get<std::string>());
  CHECK(got == cables);
}

// Findings as "kind cable cable ..." lines (cables sorted), those above
// info only unless `with_info`.
inline std::multiset<std::string> finding_lines(const nlohmann::json& report, bool with_info = false) {
  std::multiset<std::string> out;
  for (const auto& f : report["findings"]) {
    if (!with_info && f["severity"] == "info") continue;
    std::vector<std::string> cables(f["cables"].begin(), f["cables"].end());
    std::sort(cables.begin(), cables.end());
    std::string line = f["kind"];
    for (const auto& c : cables) line += " " + c;
    out.insert(line);
  }
  return out;
}

}  // namespace hpn::test
