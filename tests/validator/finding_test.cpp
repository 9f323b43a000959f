// Finding kinds and severities: the names reports write, against the list
// schemas/verify-report.schema.json allows, so that a kind added to the
// code and not to the schema (or the other way) fails here.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "validator/finding.h"
#include "validator/report.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::validator::Severity;

namespace {

const nlohmann::json& finding_schema() {
  static const nlohmann::json schema =
      nlohmann::json::parse(test::read_file(test::source_path("schemas/verify-report.schema.json")));
  return schema["properties"]["findings"]["items"]["properties"];
}

template <class Enum, std::size_t N>
std::vector<std::string> names(const std::array<Enum, N>& all) {
  std::vector<std::string> out;
  for (Enum e : all) out.emplace_back(validator::to_string(e));
  return out;
}

}  // namespace

TEST_CASE("validator/finding: the schema lists every finding kind the code has, and no other") {
  const auto in_code = names(validator::kFindingKinds);
  CHECK(finding_schema()["kind"]["enum"].get<std::vector<std::string>>() == in_code);
  // Each kind its own name: two kinds written alike could not be told apart.
  CHECK(std::set<std::string>(in_code.begin(), in_code.end()).size() == in_code.size());
  CHECK(validator::to_string(FindingKind::core_rule_violation) == "core-rule-violation");
}

TEST_CASE("validator/finding: the schema lists every severity, most severe first as reports sort them") {
  CHECK(finding_schema()["severity"]["enum"].get<std::vector<std::string>>() == names(validator::kSeverities));
  CHECK(Severity::critical < Severity::warning);
  CHECK(Severity::warning < Severity::info);
}

TEST_CASE("validator/finding: a report counts its findings per kind in the order of the kinds' names") {
  Blueprint bp;
  FabricIndex fabric(bp);
  validator::Report r;
  // Declared wrong-port before missing; written by name, missing first.
  r.summary.by_kind = {{FindingKind::wrong_port, 1}, {FindingKind::missing, 2}};
  std::ostringstream text;
  validator::render_report(r, fabric, OutputFormat::table, text);
  CHECK(text.str().find("; 0 findings (2 missing, 1 wrong-port)\n") != std::string::npos);
  std::ostringstream json;
  validator::render_report(r, fabric, OutputFormat::json, json);
  CHECK(json.str().find("\"findings\": {\n      \"missing\": 2,\n      \"wrong-port\": 1\n    }") != std::string::npos);
}
