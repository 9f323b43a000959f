#include "switchconfig/config_set.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "blueprint/atomic_file.h"
#include "blueprint/names.h"
#include "blueprint/staged_dir.h"
#include "switchconfig/agent_config.h"
#include "switchconfig/config_db.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/linux_sysctl.h"
#include "switchconfig/interfaces_file.h"

namespace hpn::switchconfig {

namespace fs = std::filesystem;

namespace {

const OutputKind kConfigSet{"the switch configurations", "an hpnctl config set", kConfigSetMarker};

Status write_text(const fs::path& path, const std::string& text) { return write_new_file(path.string(), text); }

}  // namespace

Status check_config_target(const std::string& dir) { return StagedDirectory::check_target(dir, kConfigSet); }

Result<ConfigSetReport> write_config_set(const Blueprint& bp, const ConfigBuilder& builder, const std::string& dir,
                                         const std::function<void(int, int)>& progress) {
  auto staged = StagedDirectory::begin(dir, kConfigSet);
  if (!staged) return staged.error();
  const fs::path root = staged->path();
  const auto& switches = builder.switches();
  const int total = static_cast<int>(switches.size());

  // Switches are independent: a few threads write them side by side.
  std::atomic<int> next{0}, done{0}, files{0};
  std::atomic<std::int64_t> bytes{0};
  std::mutex lock;
  std::string first_error;
  auto work = [&] {
    for (int i = next++; i < total; i = next++) {
      const SwitchConfig c = builder.build(switches[i]);
      // The switch's name becomes a directory: one safe path component.
      auto under = path_under(root, c.name, "switch");
      Status st = under ? Status{} : Status(under.error());
      const fs::path at = under ? under.value() : root;
      std::error_code ec;
      if (st && !fs::create_directory(at, ec)) {
        st = Error{fmt::format("{}: cannot create: {}", at.string(), ec ? ec.message() : "exists")};
      }
      // The interfaces as one ifupdown2 file (interfaces_file.h).
      const std::string texts[5] = {frr_conf(c), config_db(c), sysctl_conf(c), ioam_conf(c), interfaces_file(c).text};
      const char* names[5] = {"frr.conf", "config_db.json", "sysctl.conf", kIoamConfFile, kInterfacesFile};
      int written = 0;
      for (int f = 0; f < 5 && st; ++f) {
        st = write_text(at / names[f], texts[f]);
        bytes += static_cast<std::int64_t>(texts[f].size());
        ++written;
      }
      // A switch that learns hosts runs the host-route agent (hpnctl
      // switch agent): its configuration beside frr.conf.
      if (st && c.has_gateway) {
        auto agent = agent_config(c);
        if (!agent) {
          st = agent.error();
        } else {
          const std::string text = write_agent_config(agent.value());
          st = write_text(at / kAgentConfigFile, text);
          bytes += static_cast<std::int64_t>(text.size());
          ++written;
        }
      }
      files += written;
      std::lock_guard<std::mutex> guard(lock);
      if (!st && first_error.empty()) first_error = st.error().message;
      if (progress) progress(++done, total);
    }
  };
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!first_error.empty()) return Error{first_error};

  nlohmann::ordered_json manifest;
  manifest["format"] = "hpnctl-config-set";
  manifest["format_version"] = 2;  // 2: one interfaces file a switch, no networkd/
  manifest["spec_name"] = bp.spec_name;
  manifest["tool_version"] = bp.tool_version;
  manifest["files"] = {"frr.conf", "config_db.json", "sysctl.conf", kIoamConfFile, kInterfacesFile};
  manifest["agent_file"] = kAgentConfigFile;  // beside them on every switch that learns hosts
  manifest["switches"] = nlohmann::ordered_json::array();
  for (int d : switches) manifest["switches"].push_back(bp.devices[d].name);
  if (auto st = write_text(root / kConfigSetMarker, manifest.dump(2) + "\n"); !st) return st.error();
  if (auto st = staged->commit(); !st) return st.error();
  return ConfigSetReport{total, files.load() + 1, bytes.load()};
}

}  // namespace hpn::switchconfig
