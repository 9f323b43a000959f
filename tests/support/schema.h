// Output checked against the project's JSON schemas by Debian's
// python3-jsonschema (tests/schema/validate_json.py), an implementation
// independent of ours: one definition for every test that holds a command's
// output to its schema.
#pragma once

#include <string>

#include "test_util.h"

namespace hpn::test {

// What the validator says of FILE against schemas/SCHEMA ("" when FILE is
// valid): each error with its JSON path, or how the validator failed.
// lines: every line of FILE is a document of its own (JSON Lines).
inline std::string schema_errors(const std::string& schema, const fs::path& file, bool lines = false) {
  auto r = run_command("/usr/bin/python3 " + q(source_path("tests/schema/validate_json.py")) + " " +
                       q(source_path("schemas/" + schema)) + " " + q(file) + (lines ? " --lines" : "") + " 2>&1");
  if (r.exit_code == 0) return "";
  return r.out.empty() ? "validate_json.py exited " + std::to_string(r.exit_code) : r.out;
}

// The same for a document held in memory.
inline std::string schema_errors_of_text(const std::string& schema, const std::string& json_text) {
  TempDir dir;
  write_file(dir / "document.json", json_text);
  return schema_errors(schema, dir / "document.json");
}

}  // namespace hpn::test
