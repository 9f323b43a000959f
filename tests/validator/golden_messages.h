// The golden file of the diff's findings, one entry per kind
// (tests/golden/diagnosis-messages.txt): what a technician reads, byte for
// byte. Each test that makes a kind's finding checks its entry; with
// HPN_UPDATE_GOLDEN=1 in the environment it rewrites the entry instead, and
// the change shows in `git diff`.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "test_util.h"
#include "validator/diff.h"

namespace hpn::test {

inline const char* const kGoldenMessages = "tests/golden/diagnosis-messages.txt";

// Entries by their heading ("[kind]" or "[kind: case]"), in file order.
inline std::map<std::string, std::string> read_golden_messages() {
  std::map<std::string, std::string> out;
  std::ifstream in(source_path(kGoldenMessages));
  std::string line, heading, body;
  auto flush = [&] {
    if (!heading.empty()) out[heading] = body;
    body.clear();
  };
  while (std::getline(in, line)) {
    if (line.starts_with("#")) continue;
    if (line.starts_with("[")) {
      flush();
      heading = line;
    } else if (!heading.empty() && !line.empty()) {
      body += line + "\n";
    }
  }
  flush();
  return out;
}

inline std::string golden_entry(const Blueprint& bp, const validator::Finding& f) {
  std::string cables;
  for (int c : f.cables) cables += (cables.empty() ? "" : " ") + bp.cables[c].id;
  return "severity: " + std::string(to_string(f.severity)) + "\ncables: " + cables + "\nexpected: " + f.expected +
         "\nobserved: " + f.observed + "\nmessage: " + f.message + "\n";
}

// The finding against the entry `[kind]` (or `[kind: which]`).
inline void check_golden_message(const Blueprint& bp, const validator::Finding& f, const std::string& which = "") {
  const std::string heading = "[" + std::string(to_string(f.kind)) + (which.empty() ? "" : ": " + which) + "]";
  const std::string entry = golden_entry(bp, f);
  if (const char* update = std::getenv("HPN_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    auto all = read_golden_messages();
    all[heading] = entry;
    std::ofstream out(source_path(kGoldenMessages));
    out << "# Every kind of finding the diff gives, as a technician reads it (tests/validator/golden_messages.h).\n"
           "# Regenerate: HPN_UPDATE_GOLDEN=1 build/tests/validator/validator_tests '[golden]'\n";
    for (const auto& [h, body] : all) out << "\n" << h << "\n" << body;
    return;
  }
  const auto all = read_golden_messages();
  INFO(heading);
  auto it = all.find(heading);
  REQUIRE(it != all.end());
  CHECK(it->second == entry);
}

}  // namespace hpn::test
