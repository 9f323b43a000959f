#include "lab/lab_state.h"

#include "blueprint/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpn::lab {

namespace fs = std::filesystem;

LabState describe_lab(const Blueprint& bp, const LabTopology& t, const std::string& blueprint_path,
                      const std::string& wiring_source) {
  LabState s;
  s.id = t.id;
  s.prefix = t.prefix;
  s.blueprint = blueprint_path;
  s.wiring = wiring_source;
  s.ioam_namespace = t.ioam_namespace;
  std::vector<std::vector<std::pair<int, StatePort>>> ports(t.nodes.size());  // (panel index, port)
  for (const auto& link : t.links) {
    for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
      const Device& d = bp.devices[mine->device];
      StatePort p{mine->port,
                  mine->port_id,
                  mine->ifname,
                  to_string(mine->mac),
                  mine->link_local,
                  bp.devices[far->device].name,
                  far->port,
                  link.cable_id,
                  link.fault.to_string()};
      ports[t.node_of(mine->device)].emplace_back(bp.panels[d.panel].find(mine->port), std::move(p));
    }
  }
  if (!t.unplugged_netns.empty()) s.namespaces.push_back(t.unplugged_netns);
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const Device& d = bp.devices[t.nodes[n].device];
    s.namespaces.push_back(t.nodes[n].netns);
    StateDevice dev{d.name, std::string(to_string(d.role)), t.nodes[n].netns, d.node_id, {}, {}};
    std::stable_sort(ports[n].begin(), ports[n].end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& [at, p] : ports[n]) dev.ports.push_back(std::move(p));
    s.devices.push_back(std::move(dev));
  }
  return s;
}

nlohmann::json to_json(const LabState& s) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : s.devices) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : d.ports) {
      ports.push_back({{"port", p.port}, {"port_id", p.port_id}, {"ifname", p.ifname}, {"mac", p.mac},
                       {"link_local", p.link_local}, {"peer_device", p.peer_device},
                       {"peer_port", p.peer_port}, {"cable", p.cable}, {"fault", p.fault}});
    }
    devices.push_back({{"name", d.name}, {"role", d.role}, {"netns", d.netns}, {"node_id", d.node_id},
                       {"ports", std::move(ports)}, {"mgmt_address", d.mgmt_address}});
  }
  return {{"format", kLabStateFormat}, {"version", kLabStateVersion}, {"id", s.id}, {"prefix", s.prefix},
          {"blueprint", s.blueprint}, {"wiring", s.wiring}, {"pid", s.pid}, {"phase", s.phase},
          {"ioam_namespace", s.ioam_namespace}, {"namespaces", s.namespaces},
          {"devices", std::move(devices)}, {"routing_dir", s.routing_dir}, {"routers", s.routers},
          {"pbr_routers", s.pbr_routers}, {"agent_pids", s.agent_pids}, {"host_bonds", s.host_bonds},
          {"mgmt_netns", s.mgmt_netns}, {"mgmt_controller", s.mgmt_controller}, {"ssh_dir", s.ssh_dir}};
}

Result<LabState> state_from_json(const nlohmann::json& j) {
  try {
    if (j.value("format", "") != kLabStateFormat || j.value("version", 0) != kLabStateVersion) {
      return Error{fmt::format("not a version-{} {} record", kLabStateVersion, kLabStateFormat)};
    }
    LabState s;
    s.id = j.at("id").get<std::string>();
    s.prefix = j.at("prefix").get<std::string>();
    s.blueprint = j.at("blueprint").get<std::string>();
    s.wiring = j.at("wiring").get<std::string>();
    s.pid = j.at("pid").get<int>();
    s.phase = j.at("phase").get<std::string>();
    s.ioam_namespace = j.at("ioam_namespace").get<std::uint16_t>();
    s.namespaces = j.at("namespaces").get<std::vector<std::string>>();
    for (const auto& d : j.at("devices")) {
      StateDevice dev{d.at("name").get<std::string>(), d.at("role").get<std::string>(),
                      d.at("netns").get<std::string>(), d.at("node_id").get<std::uint32_t>(), {}, {}};
      for (const auto& p : d.at("ports")) {
        dev.ports.push_back({p.at("port").get<std::string>(), p.at("port_id").get<std::uint16_t>(),
                             p.at("ifname").get<std::string>(), p.at("mac").get<std::string>(),
                             p.at("link_local").get<std::string>(), p.at("peer_device").get<std::string>(),
                             p.at("peer_port").get<std::string>(), p.at("cable").get<std::string>(),
                             p.at("fault").get<std::string>()});
      }
      dev.mgmt_address = d.at("mgmt_address").get<std::string>();
      s.devices.push_back(std::move(dev));
    }
    s.routing_dir = j.at("routing_dir").get<std::string>();
    s.routers = j.at("routers").get<std::vector<std::string>>();
    s.pbr_routers = j.at("pbr_routers").get<std::vector<std::string>>();
    // "agent_pid": one lab-internal agent, from an hpnctl before the
    // shipped one; its lab still comes down.
    if (j.contains("agent_pids")) {
      s.agent_pids = j.at("agent_pids").get<std::vector<int>>();
    } else if (const int pid = j.at("agent_pid").get<int>(); pid > 0) {
      s.agent_pids = {pid};
    }
    s.host_bonds = j.at("host_bonds").get<bool>();
    s.mgmt_netns = j.at("mgmt_netns").get<std::string>();
    s.mgmt_controller = j.at("mgmt_controller").get<std::string>();
    s.ssh_dir = j.at("ssh_dir").get<std::string>();
    // Whatever else is damaged, the prefix must be one `lab down` may
    // safely match namespaces against.
    if (!s.prefix.starts_with("hpn-") || s.prefix.size() < 6 || s.prefix.back() != '-') {
      return Error{fmt::format("bad namespace prefix '{}'", s.prefix)};
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    return Error{e.what()};
  }
}

namespace {

// The record's directory is one no other user can write: root trusts
// the record (the namespaces and processes lab down removes) and writes
// beside it, and HPNCTL_LAB_STATE may name any directory, /tmp among them.
Status check_record_directory(const std::string& record) {
  const fs::path dir = fs::path(record).parent_path();
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return Error{fmt::format("{}: {}", dir.string(), std::strerror(errno))};
  }
  if (!S_ISDIR(st.st_mode)) return Error{fmt::format("{}: the lab record's directory is not a directory", dir.string())};
  if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Error{fmt::format("{}: the lab record's directory must be yours or root's and writable by no one else",
                             dir.string())};
  }
  return {};
}

}  // namespace

Result<std::optional<LabState>> LabStateFile::load() const {
  if (auto dir = check_record_directory(path_); !dir) return dir.error();
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<LabState>{};
    return Error{fmt::format("{}: {}", path_, std::strerror(errno))};
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded()) return Error{fmt::format("{}: not JSON (a damaged lab record)", path_)};
  auto state = state_from_json(json);
  if (!state) return Error{fmt::format("{}: {}", path_, state.error().message)};
  return std::optional<LabState>(std::move(state.value()));
}

namespace {

Status write_all(int fd, const std::string& text, const std::string& path) {
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  close(fd);
  if (!ok) return Error{fmt::format("{}: {}", path, std::strerror(saved))};
  return {};
}

}  // namespace

Result<std::string> lab_state_path() {
  const char* set = std::getenv(kLabStateVariable);
  if (set == nullptr || *set == '\0') return std::string(kDefaultLabState);
  const fs::path path(set);
  if (!path.is_absolute() || path.extension() != ".json" || path.lexically_normal() != path) {
    return Error{fmt::format("{}='{}': expected an absolute, normal path to a .json file", kLabStateVariable, set)};
  }
  return path.string();
}

Result<bool> LabStateFile::create(const LabState& state) const {
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  if (ec) return Error{fmt::format("{}: {}", fs::path(path_).parent_path().string(), ec.message())};
  if (auto dir = check_record_directory(path_); !dir) return dir.error();
  // Written whole beside the record, then link(2)ed into place: link fails
  // with EEXIST when a record exists, so the exclusive create and a
  // complete file are one atomic step (a kill cannot leave half a record).
  // The copy is new (O_EXCL): never a file or link someone left there.
  const std::string tmp = fmt::format("{}.{}.tmp", path_, getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("{}: {}", tmp, std::strerror(errno))};
  if (auto ok = write_all(fd, to_json(state).dump(1) + "\n", tmp); !ok) return ok.error();
  const int linked = link(tmp.c_str(), path_.c_str());
  const int saved = errno;
  unlink(tmp.c_str());
  if (linked != 0) {
    if (saved == EEXIST) return false;
    return Error{fmt::format("{}: {}", path_, std::strerror(saved))};
  }
  return true;
}

Status LabStateFile::update(const LabState& state) const {
  return write_file_atomic(path_, to_json(state).dump(1) + "\n");
}

Status LabStateFile::remove() const {
  if (unlink(path_.c_str()) != 0 && errno != ENOENT) return Error{fmt::format("{}: {}", path_, std::strerror(errno))};
  // Half-written copies a killed `lab up` may have left beside it.
  const fs::path dir = fs::path(path_).parent_path();
  const std::string stem = fs::path(path_).filename().string() + ".";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(stem) && name.ends_with(".tmp")) fs::remove(e.path(), ec);
  }
  return {};
}

}  // namespace hpn::lab
