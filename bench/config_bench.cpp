// Benchmark of `hpnctl config --all`'s stages, run apart: loading
// blueprint.db, building every switch's model, rendering each kind of
// file (frr.conf, config_db.json, the sysctl files, the interfaces file),
// and writing the set. Reports each
// stage's wall time (best of --runs) and peak resident memory (VmHWM,
// reset before each stage). The whole command's time is measured on the
// process (README, "Performance").
//
//   config_bench [--runs R] [--bring-up] PLAN_DIR
//
// Not a test: it asserts nothing and is run by hand; figures are in README.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>

#include "bench/peak_memory.h"
#include "blueprint/store.h"
#include "switchconfig/config_db.h"
#include "switchconfig/config_set.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/linux_sysctl.h"
#include "switchconfig/interfaces_file.h"

namespace {

using hpn::bench::peak_mb;
using hpn::bench::reset_peak;

// The kinds of file rendered apart (the agent's file is a few lines a ToR).
constexpr int kKinds = 4;
const char* const kKindNames[kKinds] = {"frr.conf", "config_db.json", "sysctl.conf and ioam.conf", "interfaces"};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  bool bring_up = false;
  std::string plan;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--bring-up") {
      bring_up = true;
    } else {
      plan = a;
    }
  }
  if (plan.empty()) {
    std::cerr << "usage: config_bench [--runs R] [--bring-up] PLAN_DIR\n";
    return 2;
  }
  double load = 1e9, build = 1e9, render = 1e9, write = 1e9;
  double kind_time[kKinds] = {1e9, 1e9, 1e9, 1e9};
  long load_mb = 0, render_mb = 0, write_mb = 0;
  size_t switches = 0, bytes = 0;
  const std::string out = (std::filesystem::temp_directory_path() / "hpnctl-config-bench").string();
  for (int r = 0; r < runs; ++r) {
    reset_peak();
    auto t = std::chrono::steady_clock::now();
    auto store = hpn::BlueprintStore::open(plan);
    if (!store) {
      std::cerr << store.error().message << '\n';
      return 2;
    }
    auto bp = store->load();
    if (!bp) {
      std::cerr << bp.error().message << '\n';
      return 2;
    }
    load = std::min(load, seconds_since(t));
    load_mb = std::max(load_mb, peak_mb());

    reset_peak();
    t = std::chrono::steady_clock::now();
    auto builder = hpn::switchconfig::ConfigBuilder::create(*bp, {.bring_up = bring_up});
    if (!builder) {
      std::cerr << builder.error().message << '\n';
      return 2;
    }
    std::vector<hpn::switchconfig::SwitchConfig> configs;
    for (int d : builder->switches()) configs.push_back(builder->build(d));
    build = std::min(build, seconds_since(t));
    bytes = 0;
    // Each kind of file on its own, over every switch, then the sum.
    const std::function<std::size_t(const hpn::switchconfig::SwitchConfig&)> kinds[kKinds] = {
        [](const auto& c) { return hpn::switchconfig::frr_conf(c).size(); },
        [](const auto& c) { return hpn::switchconfig::config_db(c).size(); },
        [](const auto& c) {
          return hpn::switchconfig::sysctl_conf(c).size() + hpn::switchconfig::ioam_conf(c).size();
        },
        [](const auto& c) { return hpn::switchconfig::interfaces_file(c).text.size(); },
    };
    double all = 0;
    for (int k = 0; k < kKinds; ++k) {
      t = std::chrono::steady_clock::now();
      for (const auto& c : configs) bytes += kinds[k](c);
      const double took = seconds_since(t);
      kind_time[k] = std::min(kind_time[k], took);
      all += took;
    }
    render = std::min(render, all);
    render_mb = std::max(render_mb, peak_mb());
    switches = configs.size();
    configs.clear();

    reset_peak();
    t = std::chrono::steady_clock::now();
    auto written = hpn::switchconfig::write_config_set(*bp, *builder, out);
    if (!written) {
      std::cerr << written.error().message << '\n';
      return 3;
    }
    write = std::min(write, seconds_since(t));
    write_mb = std::max(write_mb, peak_mb());
  }
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  std::cout << fmt::format(
      "{} switches, {:.1f} MB of configuration{}\n"
      "load blueprint.db  {:7.3f} s  peak {} MB\n"
      "build models       {:7.3f} s\n"
      "render all files   {:7.3f} s  peak {} MB (all models held)\n"
      "write the set      {:7.3f} s  peak {} MB (build, render and write, 4 threads)\n",
      switches, static_cast<double>(bytes) / 1e6, bring_up ? " (bring-up)" : "", load, load_mb, build, render,
      render_mb, write, write_mb);
  for (int k = 0; k < kKinds; ++k) std::cout << fmt::format("  {:<26} {:7.3f} s\n", kKindNames[k], kind_time[k]);
  return 0;
}
