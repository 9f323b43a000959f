// The INT transit of a Linux switch (int_transit.bpf.c), loaded: the eBPF
// program hpnctl carries, verified by the kernel and its maps filled with
// this switch's INT node ID, how INT is signalled (UDP destination port,
// DSCP) and each port's INT interface ID by ifindex. The program stays the
// kernel's as long as an fd or a tc filter holds it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blueprint/result.h"
#include "switch/int_transit_abi.h"

struct hpn_int_transit_bpf;  // the libbpf skeleton (generated)

namespace hpn::sw {

struct IntTransitSettings {
  std::uint32_t node_id = 0;     // 0: forward every packet untouched
  std::uint16_t udp_port = 0;    // INT by UDP destination port; 0: not by port
  std::uint8_t dscp = 0;         // INT by DSCP, (dscp & dscp_mask) == dscp
  std::uint8_t dscp_mask = 0;    // 0: not by DSCP
  std::vector<std::pair<std::uint32_t, std::uint16_t>> ports;  // ifindex -> INT interface ID
};

// Packets by outcome (int_transit_abi.h's hpn_int_counter), summed over CPUs.
using IntTransitCounters = std::array<std::uint64_t, HPN_INT_COUNTERS>;

class IntTransit {
 public:
  // Loads the program: the kernel's verifier checks it here. The error
  // carries libbpf's and the verifier's words.
  static Result<IntTransit> load();

  IntTransit(IntTransit&&) noexcept;
  IntTransit& operator=(IntTransit&&) noexcept;
  ~IntTransit();

  // Replaces the settings and the whole port table.
  Status configure(const IntTransitSettings& settings);

  // On the calling thread's network namespace: puts the program on the
  // port's egress (a clsact qdisc, made if missing; the filter hpnctl owns,
  // kTcHandle at kTcPriority, replaced if there), or takes it off. The
  // filter keeps the program and its maps in the kernel after this object
  // is gone.
  static constexpr std::uint32_t kTcHandle = 0x494e;  // "IN"
  static constexpr std::uint32_t kTcPriority = 0x4954;  // "IT"
  Status attach(int ifindex) const;
  static Status detach(int ifindex);
  Result<IntTransitCounters> counters() const;

  // Runs the program on one Ethernet frame in the kernel
  // (BPF_PROG_TEST_RUN), as if forwarded from `ingress_ifindex` out of
  // `ifindex` (a device of the calling thread's namespace; 1 is lo):
  // the frame it leaves, its tc verdict, and the kernel's average time a
  // run over `repeat` runs. For tests and benchmarks; counts as traffic.
  struct TestRun {
    std::vector<std::uint8_t> frame;
    int verdict = -1;
    std::uint32_t ns_per_run = 0;
  };
  Result<TestRun> test_run(const std::vector<std::uint8_t>& frame, std::uint32_t ingress_ifindex,
                           std::uint32_t ifindex, std::uint32_t repeat = 1) const;
  int program_fd() const;

 private:
  explicit IntTransit(hpn_int_transit_bpf* skeleton) : skeleton_(skeleton) {}
  hpn_int_transit_bpf* skeleton_ = nullptr;
};

}  // namespace hpn::sw
