// A pod planned by the real CLI into a temporary directory, for the export
// tests: `plan` holds the plan, run() runs hpnctl on it.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "test_util.h"

namespace hpn::test {

struct Planned {
  TempDir dir;
  fs::path plan;
  explicit Planned(const std::string& spec_args) : plan(dir / "plan") {
    auto r = run_hpnctl("plan " + spec_args + " -o " + q(plan), dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  fs::path db() const { return plan / "blueprint.db"; }
  RunResult run(const std::string& args) const { return run_hpnctl(args + " --blueprint " + q(plan), dir.path()); }
  RunResult ok(const std::string& args) const {
    auto r = run(args);
    INFO("hpnctl " << args << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
  }
};

}  // namespace hpn::test
