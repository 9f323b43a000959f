// Benchmark of `hpnctl plan`'s three stages, run apart: expansion (spec ->
// blueprint in memory), the SQLite write, and the CSV sheets (every file but
// the database). Reports each stage's wall time (best of --runs) and its peak
// resident memory (VmHWM, reset before each stage through clear_refs).
//
//   plan_bench [--pods N] [--runs R] [SPEC]
//
// Not a test: it asserts nothing and is run by hand; figures are in README.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "blueprint/store.h"
#include "bench/peak_memory.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"

namespace {

using hpn::bench::peak_mb;
using hpn::bench::reset_peak;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}


struct Stage {
  double seconds = 1e9;
  long peak = 0;
  void record(double s, long p) {
    seconds = std::min(seconds, s);
    peak = std::max(peak, p);
  }
};

}  // namespace

int main(int argc, char** argv) {
  int pods = 1, runs = 3;
  std::string spec_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--pods" && i + 1 < argc) pods = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else spec_path = a;
  }
  auto spec = spec_path.empty() ? hpn::default_spec() : hpn::load_spec_file(spec_path);
  if (!spec) {
    std::cerr << spec.error().message;
    return 2;
  }
  spec->pods = pods;
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("hpn-bench-{}", getpid());

  Stage expand, db, sheets;
  size_t cables = 0;
  for (int r = 0; r < runs; ++r) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    reset_peak();
    auto t0 = std::chrono::steady_clock::now();
    auto plan = hpn::make_plan(spec.value(), "bench");
    if (!plan) {
      std::cerr << plan.error().message;
      return 2;
    }
    expand.record(seconds_since(t0), peak_mb());
    cables = plan->blueprint.cables.size();

    reset_peak();
    auto t1 = std::chrono::steady_clock::now();
    if (auto st = hpn::write_blueprint_db(plan->blueprint, (dir / "blueprint.db").string()); !st) {
      std::cerr << st.error().message << '\n';
      return 3;
    }
    db.record(seconds_since(t1), peak_mb());

    reset_peak();
    auto t2 = std::chrono::steady_clock::now();
    if (auto st = hpn::write_sheets(plan->blueprint, plan->summary, dir); !st) {
      std::cerr << st.error().message << '\n';
      return 3;
    }
    sheets.record(seconds_since(t2), peak_mb());
  }
  fs::remove_all(dir);
  int64_t gpus = int64_t{pods} * spec->pod.segments * spec->segment.hosts() * spec->host.gpus;
  std::cout << fmt::format(
      "pods {:>2} ({:>6} GPUs, {:>6} cables): expand {:.3f} s / {} MB   sqlite {:.3f} s / {} MB   "
      "csv {:.3f} s / {} MB   (peak RSS of the process during each stage)\n",
      pods, gpus, cables, expand.seconds, expand.peak, db.seconds, db.peak, sheets.seconds,
      sheets.peak);
  return 0;
}
