#include "switch/int_transit.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <mutex>

#include "switch/int_transit.skel.h"

namespace hpn::sw {

namespace {

// libbpf speaks through one process-wide callback: while a load runs, its
// words (the verifier's log among them) are kept for the error.
std::mutex log_lock;
std::string* log_into = nullptr;

int keep_log(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || log_into == nullptr) return 0;
  char line[1024];
  const int n = std::vsnprintf(line, sizeof line, format, args);
  if (n > 0 && log_into->size() < 64 * 1024) log_into->append(line);
  return 0;
}

// Runs `call` with libbpf's words kept in `log` rather than printed.
template <class Call>
auto logged(std::string& log, Call call) {
  std::lock_guard<std::mutex> guard(log_lock);
  log_into = &log;
  auto* previous = libbpf_set_print(keep_log);
  auto result = call();
  libbpf_set_print(previous);
  log_into = nullptr;
  return result;
}

}  // namespace

Result<IntTransit> IntTransit::load() {
  std::string log;
  int error = 0;
  hpn_int_transit_bpf* skeleton = logged(log, [&] {
    auto* s = hpn_int_transit_bpf__open_and_load();
    error = errno;
    return s;
  });
  if (skeleton == nullptr) {
    return Error{fmt::format("cannot load the INT transit eBPF program: {}{}{}", std::strerror(error),
                             log.empty() ? "" : "\n", log)};
  }
  return IntTransit(skeleton);
}

IntTransit::IntTransit(IntTransit&& other) noexcept : skeleton_(std::exchange(other.skeleton_, nullptr)) {}

IntTransit& IntTransit::operator=(IntTransit&& other) noexcept {
  if (this != &other) {
    if (skeleton_ != nullptr) hpn_int_transit_bpf__destroy(skeleton_);
    skeleton_ = std::exchange(other.skeleton_, nullptr);
  }
  return *this;
}

IntTransit::~IntTransit() {
  if (skeleton_ != nullptr) hpn_int_transit_bpf__destroy(skeleton_);
}

int IntTransit::program_fd() const { return bpf_program__fd(skeleton_->progs.hpn_int_transit); }

Status IntTransit::configure(const IntTransitSettings& s) {
  if (s.ports.size() > HPN_INT_MAX_PORTS) {
    return Error{fmt::format("{} ports with INT interface IDs: the transit holds {}", s.ports.size(), HPN_INT_MAX_PORTS)};
  }
  const int config_fd = bpf_map__fd(skeleton_->maps.hpn_int_config);
  const int ports = bpf_map__fd(skeleton_->maps.hpn_int_ports);
  const std::uint32_t zero = 0;
  // Off (node ID 0) while the port table changes, then the new settings:
  // a node ID is never live beside another switch's ports or a half table.
  const hpn_int_config off{};
  if (bpf_map_update_elem(config_fd, &zero, &off, BPF_ANY) != 0) {
    return Error{fmt::format("INT transit: cannot turn it off to reconfigure: {}", std::strerror(errno))};
  }
  std::uint32_t key = 0, next = 0;
  std::vector<std::uint32_t> stale;
  for (int more = bpf_map_get_next_key(ports, nullptr, &next); more == 0;
       more = bpf_map_get_next_key(ports, &key, &next)) {
    stale.push_back(next);
    key = next;
  }
  for (std::uint32_t ifindex : stale) bpf_map_delete_elem(ports, &ifindex);
  for (const auto& [ifindex, id] : s.ports) {
    const std::uint32_t value = id;
    if (bpf_map_update_elem(ports, &ifindex, &value, BPF_ANY) != 0) {
      return Error{fmt::format("INT transit: cannot set interface {}'s ID: {}", ifindex, std::strerror(errno))};
    }
  }
  hpn_int_config config{};
  config.node_id = s.node_id;
  config.udp_port = s.udp_port;
  config.dscp = s.dscp;
  config.dscp_mask = s.dscp_mask;
  if (bpf_map_update_elem(config_fd, &zero, &config, BPF_ANY) != 0) {
    return Error{fmt::format("INT transit: cannot set the node ID: {}", std::strerror(errno))};
  }
  return {};
}

Result<IntTransit::TestRun> IntTransit::test_run(const std::vector<std::uint8_t>& frame, std::uint32_t ingress_ifindex,
                                                 std::uint32_t ifindex, std::uint32_t repeat) const {
  TestRun out;
  out.frame.resize(frame.size() + 512);  // room for the largest push
  __sk_buff ctx{};
  ctx.ingress_ifindex = ingress_ifindex;
  ctx.ifindex = ifindex;
  bpf_test_run_opts opts{};
  opts.sz = sizeof(opts);
  opts.data_in = frame.data();
  opts.data_size_in = static_cast<std::uint32_t>(frame.size());
  opts.data_out = out.frame.data();
  opts.data_size_out = static_cast<std::uint32_t>(out.frame.size());
  opts.ctx_in = &ctx;
  opts.ctx_size_in = sizeof(ctx);
  opts.repeat = static_cast<int>(repeat);
  if (int error = bpf_prog_test_run_opts(program_fd(), &opts); error != 0) {
    return Error{fmt::format("INT transit: BPF_PROG_TEST_RUN: {}", std::strerror(-error))};
  }
  out.frame.resize(opts.data_size_out);
  out.verdict = static_cast<int>(opts.retval);
  out.ns_per_run = opts.duration;
  return out;
}

Status IntTransit::attach(int ifindex) const {
  bpf_tc_hook hook{};
  hook.sz = sizeof(hook);
  hook.ifindex = ifindex;
  hook.attach_point = BPF_TC_EGRESS;
  // A clsact qdisc already there (the kernel says so, and libbpf would
  // print it) is the one to use.
  std::string log;
  if (int error = logged(log, [&] { return bpf_tc_hook_create(&hook); }); error != 0 && error != -EEXIST) {
    return Error{fmt::format("INT transit: cannot add a clsact qdisc to interface {}: {}{}{}", ifindex,
                             std::strerror(-error), log.empty() ? "" : "\n", log)};
  }
  bpf_tc_opts opts{};
  opts.sz = sizeof(opts);
  opts.prog_fd = program_fd();
  opts.flags = BPF_TC_F_REPLACE;
  opts.handle = kTcHandle;
  opts.priority = kTcPriority;
  if (int error = bpf_tc_attach(&hook, &opts); error != 0) {
    return Error{fmt::format("INT transit: cannot attach to interface {}'s egress: {}", ifindex, std::strerror(-error))};
  }
  return {};
}

Status IntTransit::detach(int ifindex) {
  bpf_tc_hook hook{};
  hook.sz = sizeof(hook);
  hook.ifindex = ifindex;
  hook.attach_point = BPF_TC_EGRESS;
  bpf_tc_opts opts{};
  opts.sz = sizeof(opts);
  opts.handle = kTcHandle;
  opts.priority = kTcPriority;
  if (int error = bpf_tc_detach(&hook, &opts); error != 0 && error != -ENOENT) {
    return Error{fmt::format("INT transit: cannot detach from interface {}'s egress: {}", ifindex, std::strerror(-error))};
  }
  return {};
}

Result<IntTransitCounters> IntTransit::counters() const {
  const int fd = bpf_map__fd(skeleton_->maps.hpn_int_counters);
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return Error{fmt::format("INT transit: cannot count the CPUs: {}", std::strerror(-cpus))};
  IntTransitCounters out{};
  std::vector<std::uint64_t> per_cpu(static_cast<size_t>(cpus));
  for (std::uint32_t k = 0; k < HPN_INT_COUNTERS; ++k) {
    if (bpf_map_lookup_elem(fd, &k, per_cpu.data()) != 0) {
      return Error{fmt::format("INT transit: cannot read counter {}: {}", k, std::strerror(errno))};
    }
    for (auto n : per_cpu) out[k] += n;
  }
  return out;
}

}  // namespace hpn::sw
