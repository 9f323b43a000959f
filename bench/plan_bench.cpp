// Benchmark of `hpnctl plan`'s three stages, run apart: expansion (spec ->
// blueprint in memory), the SQLite write, and the CSV sheets. Reports wall
// time per stage (best of --runs) and the process's peak resident memory.
//
//   plan_bench [--pods N] [--runs R] [SPEC]
//
// Not a test: it asserts nothing and is run by hand (see README).
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>

#include "blueprint/store.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

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
  spec->layout.pods_per_hall = 1;
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("hpn-bench-{}", getpid());
  fs::create_directories(dir);

  double best_expand = 1e9, best_db = 1e9, best_csv = 1e9, best_total = 1e9;
  size_t cables = 0, ports = 0;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto plan = hpn::make_plan(spec.value(), "bench");
    if (!plan) {
      std::cerr << plan.error().message;
      return 2;
    }
    double expand = seconds_since(t0);
    cables = plan->blueprint.cables.size();
    ports = 0;
    for (const auto& d : plan->blueprint.devices) ports += plan->blueprint.panels[d.panel].ports.size();

    fs::remove(dir / "blueprint.db");
    auto t1 = std::chrono::steady_clock::now();
    if (auto st = hpn::write_blueprint_db(plan->blueprint, (dir / "blueprint.db").string()); !st) {
      std::cerr << st.error().message << '\n';
      return 3;
    }
    double db = seconds_since(t1);

    auto t2 = std::chrono::steady_clock::now();
    {
      std::ofstream cabling(dir / "cabling.csv"), devices(dir / "devices.csv");
      hpn::write_cabling_csv(plan->blueprint, cabling);
      hpn::write_devices_csv(plan->blueprint, devices);
    }
    double csv = seconds_since(t2);

    fs::remove_all(dir / "out");
    auto t3 = std::chrono::steady_clock::now();
    auto again = hpn::make_plan(spec.value(), "bench");
    if (auto st = hpn::write_plan(again->blueprint, again->summary, (dir / "out").string()); !st) {
      std::cerr << st.error().message << '\n';
      return 3;
    }
    double total = seconds_since(t3);
    best_expand = std::min(best_expand, expand);
    best_db = std::min(best_db, db);
    best_csv = std::min(best_csv, csv);
    best_total = std::min(best_total, total);
  }
  fs::remove_all(dir);
  int64_t gpus = int64_t{pods} * spec->pod.segments * spec->segment.hosts() * spec->host.gpus;
  std::cout << fmt::format(
      "pods {:>2}  GPUs {:>6}  cables {:>6}  ports {:>7}  expand {:.3f} s  sqlite {:.3f} s  "
      "csv(cabling+devices) {:.3f} s  whole plan incl. all sheets {:.3f} s  peak RSS {} MB\n",
      pods, gpus, cables, ports, best_expand, best_db, best_csv, best_total, peak_rss_mb());
  return 0;
}
