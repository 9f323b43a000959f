#include "lab/netlink_ops.h"

#include "blueprint/atomic_file.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "host/host_announce.h"
#include "host/host_apply.h"
#include "host/host_netlink.h"
#include "host/host_state.h"
#include "lab/frr.h"
#include "lab/lab_fleet.h"
#include "switch/switch_apply.h"
#include "switch/switch_netlink.h"
#include "switch/switch_set.h"
#include "system/netns.h"
#include "system/sysctl.h"
#include "system/nl_util.h"

extern char** environ;

namespace hpn::lab {

namespace {

// linux/if.h's IFF_LOWER_UP; that header clashes with glibc's net/if.h.
constexpr unsigned kIffLowerUp = 1u << 16;

// The owning handles are the ones host apply uses (system/nl_util.h).
using host::nl::Addr;
using host::nl::Cache;
using host::nl::Deleter;
using host::nl::Sock;
using Link = std::unique_ptr<rtnl_link, Deleter<rtnl_link, rtnl_link_put>>;

Error nl_error(const std::string& what, int err) { return Error{fmt::format("{}: {}", what, nl_geterror(err))}; }

Result<Sock> connect(int protocol) {
  Sock sk(nl_socket_alloc());
  if (!sk) return Error{"netlink: out of memory"};
  const int err = nl_connect(sk.get(), protocol);
  if (err < 0) return nl_error("netlink connect", err);
  return sk;
}

Result<Addr> parse_addr(const std::string& text, int prefix_len) {
  nl_addr* a = nullptr;
  // IPv6, or IPv4 (the management network's) when it has no colon.
  const int family = text.find(':') == std::string::npos ? AF_INET : AF_INET6;
  const int err = nl_addr_parse(fmt::format("{}/{}", text, prefix_len).c_str(), family, &a);
  if (err < 0) return nl_error(fmt::format("address {}", text), err);
  return Addr(a);
}

Addr mac_addr(const Mac& mac) { return Addr(nl_addr_build(AF_LLC, mac.data(), mac.size())); }

std::string ipv6_text(nl_addr* a) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a != nullptr && nl_addr_get_len(a) == 16) inet_ntop(AF_INET6, nl_addr_get_binary_addr(a), text, sizeof text);
  return text;
}

// The calls below run on a thread inside the namespace (run_in_netns), so
// if_nametoindex, /proc/sys and sockets all see that namespace.
Result<int> ifindex(const std::string& ifname) {
  const unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) return Error{fmt::format("no interface {}", ifname)};
  return static_cast<int>(index);
}

Status write_sysctl(const Sysctl& s) {
  const std::string path = "/proc/sys/" + s.key;
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    if (s.optional && errno == ENOENT) return {};
    return Error{fmt::format("sysctl {}: {}", s.key, std::strerror(errno))};
  }
  const bool ok = write(fd, s.value.data(), s.value.size()) == static_cast<ssize_t>(s.value.size());
  const int saved = errno;
  close(fd);
  if (!ok) return Error{fmt::format("sysctl {}={}: {}", s.key, s.value, std::strerror(saved))};
  return {};
}

Status add_address(nl_sock* sk, const AddressConfig& a) {
  auto index = ifindex(a.ifname);
  if (!index) return index.error();
  auto local = parse_addr(a.address, a.prefix_len);
  if (!local) return local.error();
  std::unique_ptr<rtnl_addr, Deleter<rtnl_addr, rtnl_addr_put>> addr(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(addr.get(), *index);
  rtnl_addr_set_local(addr.get(), local->get());
  rtnl_addr_set_prefixlen(addr.get(), a.prefix_len);
  // No duplicate address detection: the lab's addresses are unique by
  // construction, and DAD would keep them tentative for a second.
  rtnl_addr_set_flags(addr.get(), IFA_F_NODAD | (a.no_prefix_route ? IFA_F_NOPREFIXROUTE : 0));
  if (int err = rtnl_addr_add(sk, addr.get(), 0); err < 0) {
    return nl_error(fmt::format("address {}/{} on {}", a.address, a.prefix_len, a.ifname), err);
  }
  return {};
}

Status set_up(nl_sock* sk, const std::string& ifname, bool up = true) {
  rtnl_link* found = nullptr;
  if (int err = rtnl_link_get_kernel(sk, 0, ifname.c_str(), &found); err < 0) return nl_error(ifname, err);
  Link orig(found), change(rtnl_link_alloc());
  if (up) {
    rtnl_link_set_flags(change.get(), IFF_UP);
  } else {
    rtnl_link_unset_flags(change.get(), IFF_UP);
  }
  if (int err = rtnl_link_change(sk, orig.get(), change.get(), 0); err < 0) {
    return nl_error(fmt::format("set {} {}", ifname, up ? "up" : "down"), err);
  }
  return {};
}

Status add_bridge(nl_sock* sk, const std::string& name) {
  Link link(rtnl_link_alloc());
  if (int err = rtnl_link_set_type(link.get(), "bridge"); err < 0) return nl_error("bridge " + name, err);
  rtnl_link_set_name(link.get(), name.c_str());
  if (int err = rtnl_link_add(sk, link.get(), NLM_F_CREATE | NLM_F_EXCL); err < 0) {
    return nl_error("bridge " + name, err);
  }
  return {};
}

Status join_bridge(nl_sock* sk, const std::string& port, const std::string& bridge) {
  auto master = ifindex(bridge);
  if (!master) return master.error();
  auto slave = ifindex(port);
  if (!slave) return slave.error();
  if (int err = rtnl_link_enslave_ifindex(sk, *master, *slave); err < 0) {
    return nl_error(fmt::format("{} into bridge {}", port, bridge), err);
  }
  return {};
}

Status add_neighbour(nl_sock* sk, const NeighbourConfig& n) {
  auto index = ifindex(n.ifname);
  if (!index) return index.error();
  auto dst = parse_addr(n.address, 128);
  if (!dst) return dst.error();
  Addr lladdr = mac_addr(n.mac);
  std::unique_ptr<rtnl_neigh, Deleter<rtnl_neigh, rtnl_neigh_put>> neigh(rtnl_neigh_alloc());
  rtnl_neigh_set_family(neigh.get(), AF_INET6);
  rtnl_neigh_set_ifindex(neigh.get(), *index);
  rtnl_neigh_set_dst(neigh.get(), dst->get());
  rtnl_neigh_set_lladdr(neigh.get(), lladdr.get());
  rtnl_neigh_set_state(neigh.get(), NUD_PERMANENT);
  if (int err = rtnl_neigh_add(sk, neigh.get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0) {
    return nl_error(fmt::format("neighbour {} on {}", n.address, n.ifname), err);
  }
  return {};
}

Status add_rule(nl_sock* sk, const SourceRule& r) {
  auto src = parse_addr(r.from, r.from_len);
  if (!src) return src.error();
  std::unique_ptr<rtnl_rule, Deleter<rtnl_rule, rtnl_rule_put>> rule(rtnl_rule_alloc());
  rtnl_rule_set_family(rule.get(), AF_INET6);
  rtnl_rule_set_src(rule.get(), src->get());
  rtnl_rule_set_table(rule.get(), r.table);
  rtnl_rule_set_prio(rule.get(), r.priority);
  rtnl_rule_set_action(rule.get(), FR_ACT_TO_TBL);
  if (int err = rtnl_rule_add(sk, rule.get(), NLM_F_CREATE); err < 0) {
    return nl_error(fmt::format("rule from {} table {}", r.from, r.table), err);
  }
  return {};
}

Status add_route(nl_sock* sk, const Route& r) {
  auto dst = parse_addr(r.prefix, r.prefix_len);
  if (!dst) return dst.error();
  std::unique_ptr<rtnl_route, Deleter<rtnl_route, rtnl_route_put>> route(rtnl_route_alloc());
  rtnl_route_set_family(route.get(), AF_INET6);
  rtnl_route_set_dst(route.get(), dst->get());
  rtnl_route_set_table(route.get(), r.table);
  // "proto bgp" in `ip route`: what the fabric's BGP would have installed.
  rtnl_route_set_protocol(route.get(), RTPROT_BGP);
  rtnl_route_set_scope(route.get(), RT_SCOPE_UNIVERSE);
  rtnl_route_set_type(route.get(), RTN_UNICAST);
  for (const auto& hop : r.nexthops) {
    auto index = ifindex(hop.ifname);
    if (!index) return index.error();
    auto gateway = parse_addr(hop.gateway, 128);
    if (!gateway) return gateway.error();
    rtnl_nexthop* nh = rtnl_route_nh_alloc();  // owned by the route once added
    rtnl_route_nh_set_ifindex(nh, *index);
    rtnl_route_nh_set_gateway(nh, gateway->get());
    rtnl_route_add_nexthop(route.get(), nh);
  }
  if (int err = rtnl_route_add(sk, route.get(), NLM_F_CREATE | NLM_F_EXCL); err < 0) {
    return nl_error(fmt::format("route {}/{} table {}", r.prefix, r.prefix_len, r.table), err);
  }
  return {};
}

// `nft -f -` with the script on stdin; nft's own message on failure.
Status run_nft(const std::string& script) {
  int in[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return Error{"nft: pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDOUT_FILENO);
  char* argv[] = {const_cast<char*>("nft"), const_cast<char*>("-f"), const_cast<char*>("-"), nullptr};
  pid_t pid = -1;
  // PATH first, then where Debian installs it (sbin is not on every PATH).
  int rc = posix_spawnp(&pid, "nft", &actions, nullptr, argv, environ);
  if (rc != 0) rc = posix_spawn(&pid, "/usr/sbin/nft", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(err[0]);
    return Error{fmt::format("cannot run nft: {}", std::strerror(rc))};
  }
  // Scripts are a few hundred bytes, well under a pipe's buffer.
  const bool written = write(in[1], script.data(), script.size()) == static_cast<ssize_t>(script.size());
  close(in[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<size_t>(n));
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!written || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error{fmt::format("nft -f -: {}", message.empty() ? "failed" : message)};
  }
  return {};
}

}  // namespace

Status NetlinkOps::create_namespace(const std::string& name) { return create_named_netns(name); }
Status NetlinkOps::delete_namespace(const std::string& name) { return delete_named_netns(name); }
Result<std::vector<std::string>> NetlinkOps::namespaces() { return list_named_netns(); }

Status NetlinkOps::add_veth(const VethEnd& a, const VethEnd& z) {
  // Both ends are created straight inside their namespaces (IFLA_NET_NS_FD
  // on the link and on the peer), so no interface ever exists in ours: a
  // crash leaves nothing outside the lab's namespaces.
  // An empty name is this process's namespace (/proc/self/ns/net).
  auto ns_path = [](const std::string& name) {
    return name.empty() ? std::string("/proc/self/ns/net") : std::string(kNetnsRunDir) + "/" + name;
  };
  const std::string pa = ns_path(a.netns);
  const std::string pz = ns_path(z.netns);
  const int fa = open(pa.c_str(), O_RDONLY | O_CLOEXEC);
  const int fz = open(pz.c_str(), O_RDONLY | O_CLOEXEC);
  auto close_both = [&] {
    if (fa >= 0) close(fa);
    if (fz >= 0) close(fz);
  };
  if (fa < 0 || fz < 0) {
    close_both();
    return Error{fmt::format("open {}: {}", fa < 0 ? pa : pz, std::strerror(errno))};
  }
  auto sk = connect(NETLINK_ROUTE);
  if (!sk) {
    close_both();
    return sk.error();
  }
  rtnl_link* link = rtnl_link_veth_alloc();
  rtnl_link* peer = rtnl_link_veth_get_peer(link);  // takes a reference
  Addr mac_a = mac_addr(a.mac), mac_z = mac_addr(z.mac);
  rtnl_link_set_name(link, a.ifname.c_str());
  rtnl_link_set_ns_fd(link, fa);
  rtnl_link_set_addr(link, mac_a.get());
  rtnl_link_set_name(peer, z.ifname.c_str());
  rtnl_link_set_ns_fd(peer, fz);
  rtnl_link_set_addr(peer, mac_z.get());
  rtnl_link_put(peer);
  const int err = rtnl_link_add(sk->get(), link, NLM_F_CREATE | NLM_F_EXCL);
  rtnl_link_veth_release(link);
  close_both();
  if (err < 0) {
    return nl_error(fmt::format("veth {}:{} -- {}:{}", a.netns, a.ifname, z.netns, z.ifname), err);
  }
  return {};
}

Status NetlinkOps::configure(const std::string& netns, const NamespaceConfig& c) {
  auto done = run_in_netns(netns, [&]() -> Status {
    for (const auto& s : c.sysctls) {
      if (auto ok = write_sysctl(s); !ok) return ok;
    }
    auto sk = connect(NETLINK_ROUTE);
    if (!sk) return sk.error();
    for (const auto& b : c.bridges) {
      if (auto ok = add_bridge(sk->get(), b); !ok) return ok;
    }
    for (const auto& [port, bridge] : c.bridge_ports) {
      if (auto ok = join_bridge(sk->get(), port, bridge); !ok) return ok;
    }
    for (const auto& a : c.addresses) {
      if (auto ok = add_address(sk->get(), a); !ok) return ok;
    }
    for (const auto& l : c.links_up) {
      if (auto ok = set_up(sk->get(), l); !ok) return ok;
    }
    for (const auto& l : c.links_down) {
      if (auto ok = set_up(sk->get(), l, false); !ok) return ok;
    }
    for (const auto& n : c.neighbours) {
      if (auto ok = add_neighbour(sk->get(), n); !ok) return ok;
    }
    for (const auto& r : c.rules) {
      if (auto ok = add_rule(sk->get(), r); !ok) return ok;
    }
    for (const auto& r : c.routes) {
      if (auto ok = add_route(sk->get(), r); !ok) return ok;
    }
    if (!c.nft_script.empty()) return run_nft(c.nft_script);
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return {};
}

Result<std::vector<InterfaceState>> NetlinkOps::interfaces(const std::string& netns) {
  std::vector<InterfaceState> out;
  auto done = run_in_netns(netns, [&]() -> Status {
    auto sk = connect(NETLINK_ROUTE);
    if (!sk) return sk.error();
    nl_cache* links = nullptr;
    nl_cache* addrs = nullptr;
    if (int err = rtnl_link_alloc_cache(sk->get(), AF_UNSPEC, &links); err < 0) return nl_error("links", err);
    Cache link_cache(links);
    if (int err = rtnl_addr_alloc_cache(sk->get(), &addrs); err < 0) return nl_error("addresses", err);
    Cache addr_cache(addrs);
    std::map<int, size_t> by_index;
    for (nl_object* o = nl_cache_get_first(links); o != nullptr; o = nl_cache_get_next(o)) {
      auto* l = reinterpret_cast<rtnl_link*>(o);  // libnl's cache API hands out base objects
      InterfaceState s;
      s.ifname = rtnl_link_get_name(l);
      if (s.ifname == "lo") continue;
      if (nl_addr* mac = rtnl_link_get_addr(l); mac != nullptr && nl_addr_get_len(mac) == 6) {
        const auto* b = static_cast<const std::uint8_t*>(nl_addr_get_binary_addr(mac));
        s.mac = to_string(Mac{b[0], b[1], b[2], b[3], b[4], b[5]});
      }
      const unsigned flags = rtnl_link_get_flags(l);
      s.up = (flags & IFF_UP) != 0;
      s.carrier = (flags & kIffLowerUp) != 0;
      by_index[rtnl_link_get_ifindex(l)] = out.size();
      out.push_back(std::move(s));
    }
    for (nl_object* o = nl_cache_get_first(addrs); o != nullptr; o = nl_cache_get_next(o)) {
      auto* a = reinterpret_cast<rtnl_addr*>(o);
      auto it = by_index.find(rtnl_addr_get_ifindex(a));
      if (rtnl_addr_get_family(a) != AF_INET6 || it == by_index.end()) continue;
      out[it->second].addresses.push_back(
          fmt::format("{}/{}", ipv6_text(rtnl_addr_get_local(a)), rtnl_addr_get_prefixlen(a)));
    }
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return out;
}

Status NetlinkOps::check_routing(bool pbrd) { return check_frr(pbrd); }

Status NetlinkOps::remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Error{fmt::format("{}: {}", path, ec.message())};
  return {};
}

Result<bool> NetlinkOps::claim_directory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Error{fmt::format("{}: {}", std::filesystem::path(path).parent_path().string(), ec.message())};
  if (mkdir(path.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) return false;
  return Error{fmt::format("{}: {}", path, std::strerror(errno))};
}

Status NetlinkOps::start_routing(const RoutingDaemons& d, const std::string& frr_conf) {
  return lab::start_routing(d, frr_conf);
}

std::string NetlinkOps::routing_problem(const RoutingDaemons& d) { return lab::routing_problem(d); }

Status NetlinkOps::stop_routing(const std::vector<RoutingDaemons>& d) { return lab::stop_routing(d); }

Result<std::string> NetlinkOps::bgpd_show(const std::string& netns, const std::string& command) {
  return lab::ask_daemon(netns, "bgpd", command);
}

Status NetlinkOps::vtysh_apply(const RoutingDaemons& d, const std::string& name, const std::string& lines) {
  return lab::vtysh_apply(d, name, lines);
}

Result<int> NetlinkOps::start_switch_agent(const SwitchAgentLaunch& launch, const std::string& config_text) {
  if (auto ok = write_file_atomic(launch.config, config_text); !ok) return ok.error();
  return spawn_switch_agent(launch);
}

Status NetlinkOps::check_ssh() {
  if (!std::filesystem::exists(kSshd)) {
    return Error{fmt::format("--ssh needs {} (Debian package {})", kSshd, kSshPackage)};
  }
  return {};
}

Result<std::string> NetlinkOps::make_ssh_keys(const std::string& dir, const std::string& comment) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{fmt::format("{}: {}", dir, ec.message())};
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec) return Error{fmt::format("{}: {}", dir, ec.message())};
  for (const char* key : {kLabHostKey, kLabClientKey}) {
    const std::string path = dir + "/" + key;
    std::filesystem::remove(path, ec);
    std::filesystem::remove(path + ".pub", ec);
    auto r = run_in_namespace("", {kSshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path},
                              std::chrono::seconds(30));
    if (!r) return r.error();
    if (r->exit_code != 0) return Error{fmt::format("ssh-keygen -f {} exited with {}: {}", path, r->exit_code, r->err)};
  }
  std::ifstream in(dir + "/" + kLabHostKey + ".pub");
  std::string type, key;
  if (!(in >> type >> key)) return Error{fmt::format("{}/{}.pub: no public key in it", dir, kLabHostKey)};
  return type + " " + key;
}

Result<int> NetlinkOps::start_sshd(const std::string& netns, const std::vector<std::string>& args,
                                   const std::string& pid_file) {
  std::error_code ec;
  std::filesystem::remove(pid_file, ec);
  // Debian's sshd refuses to start without its privilege separation directory.
  std::filesystem::create_directories(kSshdPrivsepDir, ec);
  std::vector<std::string> argv{kSshd};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_in_namespace(netns, argv, std::chrono::seconds(15));
  if (!r) return r.error();
  if (r->exit_code != 0) return Error{fmt::format("{}: sshd exited with {}: {}", netns, r->exit_code, r->err)};
  // The daemon writes its pid file once it has forked off.
  for (int i = 0; i < 500; ++i) {
    if (auto pid = read_pid(pid_file)) return static_cast<int>(*pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Error{fmt::format("{}: sshd wrote no pid file ({})", netns, pid_file)};
}

Result<int> NetlinkOps::stop_processes_in(const std::vector<std::string>& netns) {
  std::set<std::pair<dev_t, ino_t>> doomed;
  for (const auto& n : netns) {
    struct stat st {};
    if (stat((std::string(kNetnsRunDir) + "/" + n).c_str(), &st) == 0) doomed.insert({st.st_dev, st.st_ino});
  }
  std::vector<pid_t> running;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    struct stat st {};
    if (stat((entry.path() / "ns" / "net").c_str(), &st) != 0 || !doomed.count({st.st_dev, st.st_ino})) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid != getpid() && kill(pid, SIGTERM) == 0) running.push_back(pid);
  }
  // One second for all of them.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (pid_t pid : running) {
    while (process_running(pid) && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (process_running(pid)) kill(pid, SIGKILL);
  }
  return static_cast<int>(running.size());
}

Status NetlinkOps::stop_process(int pid) {
  if (pid <= 1) return {};
  if (kill(pid, SIGTERM) != 0) return {};
  for (int i = 0; i < 200 && process_running(pid); ++i) {
    // Our own child (the agent spawned by this process) must be reaped.
    if (waitpid(pid, nullptr, WNOHANG) == pid) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (process_running(pid)) kill(pid, SIGKILL);
  waitpid(pid, nullptr, WNOHANG);
  return {};
}

Status NetlinkOps::raise_machine_sysctls(const std::map<std::string, long>& at_least) {
  for (const auto& [key, value] : at_least) {
    const auto now = hpn::read_sysctl(key);
    if (!now) continue;  // a key this kernel, or this namespace, lacks
    if (std::strtol(now->c_str(), nullptr, 10) >= value) continue;
    if (auto ok = hpn::write_sysctl(key, std::to_string(value)); !ok) return ok;
  }
  return {};
}

namespace {

std::string prefix_text(nl_addr* a, int family) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a != nullptr && nl_addr_get_len(a) > 0) {
    inet_ntop(family, nl_addr_get_binary_addr(a), text, sizeof text);
  } else {
    std::snprintf(text, sizeof text, "%s", family == AF_INET ? "0.0.0.0" : "::");
  }
  return fmt::format("{}/{}", text, a == nullptr ? 0 : nl_addr_get_prefixlen(a));
}

}  // namespace

Result<std::vector<RouteState>> NetlinkOps::routes(const std::string& netns) {
  std::vector<RouteState> out;
  auto done = run_in_netns(netns, [&]() -> Status {
    auto sk = connect(NETLINK_ROUTE);
    if (!sk) return sk.error();
    nl_cache* links = nullptr;
    if (int err = rtnl_link_alloc_cache(sk->get(), AF_UNSPEC, &links); err < 0) return nl_error("links", err);
    Cache link_cache(links);
    for (int family : {AF_INET, AF_INET6}) {
      nl_cache* routes = nullptr;
      if (int err = rtnl_route_alloc_cache(sk->get(), family, 0, &routes); err < 0) return nl_error("routes", err);
      Cache route_cache(routes);
      for (nl_object* o = nl_cache_get_first(routes); o != nullptr; o = nl_cache_get_next(o)) {
        auto* r = reinterpret_cast<rtnl_route*>(o);
        if (rtnl_route_get_type(r) != RTN_UNICAST) continue;
        RouteState s;
        s.family = family == AF_INET ? 4 : 6;
        s.prefix = prefix_text(rtnl_route_get_dst(r), family);
        s.table = rtnl_route_get_table(r);
        s.protocol = rtnl_route_get_protocol(r);
        for (int i = 0; i < rtnl_route_get_nnexthops(r); ++i) {
          rtnl_nexthop* nh = rtnl_route_nexthop_n(r, i);
          char name[IF_NAMESIZE] = "";
          rtnl_link_i2name(links, rtnl_route_nh_get_ifindex(nh), name, sizeof name);
          s.nexthop_ifnames.push_back(name);
        }
        std::sort(s.nexthop_ifnames.begin(), s.nexthop_ifnames.end());
        out.push_back(std::move(s));
      }
    }
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return out;
}

Result<std::vector<RuleState>> NetlinkOps::rules(const std::string& netns) {
  std::vector<RuleState> out;
  auto done = run_in_netns(netns, [&]() -> Status {
    auto sk = connect(NETLINK_ROUTE);
    if (!sk) return sk.error();
    for (int family : {AF_INET, AF_INET6}) {
      nl_cache* rules = nullptr;
      if (int err = rtnl_rule_alloc_cache(sk->get(), family, &rules); err < 0) return nl_error("rules", err);
      Cache rule_cache(rules);
      for (nl_object* o = nl_cache_get_first(rules); o != nullptr; o = nl_cache_get_next(o)) {
        auto* r = reinterpret_cast<rtnl_rule*>(o);
        if (rtnl_rule_get_family(r) != family) continue;  // the cache holds both families
        RuleState s;
        s.family = family == AF_INET ? 4 : 6;
        if (const char* iif = rtnl_rule_get_iif(r)) s.iif = iif;
        if (nl_addr* dst = rtnl_rule_get_dst(r); dst != nullptr && nl_addr_get_len(dst) > 0) {
          s.dst = prefix_text(dst, family);
        }
        s.table = rtnl_rule_get_table(r);
        s.priority = rtnl_rule_get_prio(r);
        out.push_back(std::move(s));
      }
    }
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return out;
}

Result<size_t> NetlinkOps::apply_host(const std::string& netns, const HostNetwork& profile, bool no_bond) {
  size_t made = 0;
  auto done = run_in_netns(netns, [&]() -> Status {
    const host::ApplyOptions options{.no_bond = no_bond};
    auto state = host::read_host_state(host::sysctl_keys(profile, options));
    if (!state) return state.error();
    auto plan = host::plan_changes(profile, *state, options);
    if (!plan) return plan.error();
    if (!plan->conflicts.empty()) {
      std::string what;
      for (const auto& c : plan->conflicts) what += "\n  " + c.text;
      return Error{fmt::format("host apply refused {}:{}", profile.host, what)};
    }
    host::NetlinkHostOps ops;
    const auto outcome = host::apply_plan(*plan, ops);
    if (!outcome.ok()) {
      return Error{fmt::format("host apply of {}: step {} ({}) failed: {}; {}", profile.host,
                               *outcome.failed_step + 1, plan->changes[*outcome.failed_step].text(), outcome.error,
                               outcome.undo_errors.empty() ? "rolled back" : "rollback incomplete")};
    }
    made = outcome.applied;
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return made;
}

Result<size_t> NetlinkOps::apply_switch(const std::string& netns, const std::string& dir,
                                        const std::vector<switchconfig::SwitchFile>& files) {
  for (const auto& f : files) {
    const std::filesystem::path path = std::filesystem::path(dir) / f.path;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return Error{fmt::format("{}: {}", path.parent_path().string(), ec.message())};
    if (auto ok = write_file_atomic(path.string(), f.text); !ok) return ok.error();
  }
  // From here on, what `hpnctl switch apply DIR --netns NETNS` does.
  auto set = sw::read_switch_set(dir);
  if (!set) return set.error();
  auto protocol = sw::agent_protocol(dir);
  if (!protocol) return protocol.error();
  size_t made = 0;
  auto done = run_in_netns(netns, [&]() -> Status {
    auto state = sw::read_switch_state(sw::sysctl_keys(*set));
    if (!state) return state.error();
    if (auto problems = sw::identity_problems(*set, *state, netns, true); !problems.empty()) {
      return Error{fmt::format("switch apply refused {}: not this switch's set:\n  {}", set->name,
                               fmt::join(problems, "\n  "))};
    }
    auto plan = sw::plan_changes(*set, *state, *protocol);
    if (!plan) return plan.error();
    if (!plan->conflicts.empty()) {
      return Error{fmt::format("switch apply refused {}:\n  {}", set->name, fmt::join(plan->conflicts, "\n  "))};
    }
    sw::NetlinkSwitchOps ops;
    const auto outcome = sw::apply_plan(*plan, ops);
    if (!outcome.ok()) {
      return Error{fmt::format("switch apply of {}: step {} ({}) failed: {}; {}", set->name,
                               *outcome.failed_step + 1, plan->changes[*outcome.failed_step].text(), outcome.error,
                               outcome.undo_errors.empty() ? "rolled back" : "rollback incomplete")};
    }
    made = outcome.applied;
    return {};
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return made;
}

Status NetlinkOps::announce_host(const std::string& netns, const HostNetwork& profile,
                                 const std::set<std::string>& dark) {
  auto done = run_in_netns(netns, [&]() -> Status {
    auto state = host::read_host_state({});
    if (!state) return state.error();
    auto announcements = host::plan_announcements(profile, *state);
    if (!announcements) return announcements.error();
    // Nothing would leave a dark member (the kernel refuses, ENOBUFS).
    std::erase_if(*announcements, [&](const host::Announcement& a) { return dark.count(a.port) > 0; });
    host::PcapFrameSender sender;
    return host::send_announcements(*announcements, 1, sender);
  });
  if (!done) return Error{fmt::format("{}: {}", netns, done.error().message)};
  return {};
}

}  // namespace hpn::lab
