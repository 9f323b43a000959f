#include "hostconfig/profile_nccl.h"

#include <fmt/format.h>

#include <algorithm>

namespace hpn {

std::vector<ClassProfile> class_profiles(const std::vector<PathClass>& classes,
                                         const TransportSpec& t) {
  std::vector<ClassProfile> out;
  for (const auto& c : classes) {
    ClassProfile p;
    p.path = c;
    p.dqplb = dqplb_setting(c.bdp_bytes, c.hops, t);
    switch (c.scope) {
      case PathScope::same_segment:
      case PathScope::cross_rail:
        p.ncclx_peer = "same-rack";
        p.env = {"NCCL_CTRAN_IB_MAX_QPS", "NCCL_CTRAN_IB_QP_SCALING_THRESHOLD",
                 "NCCL_CTRAN_IB_QP_MAX_MSGS", "NCCL_CTRAN_IB_VC_MODE"};
        break;
      case PathScope::same_pod:
        p.ncclx_peer = "same-zone";
        p.env = {"NCCL_CTRAN_IB_QP_CONFIG_XRACK"};
        break;
      case PathScope::same_hall:
        p.ncclx_peer = "same-dc";
        p.env = {"NCCL_CTRAN_IB_QP_CONFIG_XZONE"};
        break;
      case PathScope::other_hall:
        p.ncclx_peer = "diff-dc";
        p.env = {"NCCL_CTRAN_IB_QP_CONFIG_XDC"};
        break;
    }
    out.push_back(std::move(p));
  }
  // Per NCCLX level, the class with the largest window (the nearer on a
  // tie) lends the level its setting: no class of the level then stalls
  // below line rate, at the price of more in flight for the others.
  for (auto& p : out) {
    const ClassProfile* widest = nullptr;
    for (const auto& q : out) {
      if (q.ncclx_peer == p.ncclx_peer && (!widest || q.dqplb.window_bytes > widest->dqplb.window_bytes)) {
        widest = &q;
      }
    }
    p.ncclx_setting = widest->path.scope;
  }
  return out;
}

NcclxTopology ncclx_topology(int hall, int pod, int segment) {
  // Each level names its parents too, as NCCLX's own names do
  // (snb1/snb1.z081/snb1.z081.u015): a zone is compared on its own.
  NcclxTopology t;
  t.path = kNcclxTopologyPath;
  t.dc = fmt::format("h{}", hall);
  t.zone = fmt::format("{}.p{}", t.dc, pod);
  t.su = fmt::format("{}.s{}", t.zone, segment);
  return t;
}

std::vector<EnvVar> nccl_environment(const HostProfile& p, const TransportSpec& t) {
  std::vector<EnvVar> env;
  auto add = [&](const std::string& name, const std::string& value) { env.push_back({name, value}); };
  add("NCCL_TOPO_FILE_PATH", p.topology.path);
  int qps = t.qps;
  for (const auto& c : p.classes) {
    qps = std::max(qps, c.dqplb.qps);
    if (c.ncclx_setting != c.path.scope) continue;  // another class of its level carries it
    if (c.ncclx_peer == "same-rack") {
      add("NCCL_CTRAN_IB_MAX_QPS", std::to_string(c.dqplb.qps));
      add("NCCL_CTRAN_IB_QP_SCALING_THRESHOLD", std::to_string(c.dqplb.segment_bytes));
      add("NCCL_CTRAN_IB_QP_MAX_MSGS", std::to_string(c.dqplb.max_msgs));
      add("NCCL_CTRAN_IB_VC_MODE", std::string(to_string(c.dqplb.mode)));
    } else {
      add(c.env.front(), ncclx_qp_config(c.dqplb));
    }
  }
  // Stock NCCL has one setting per process. Its QPs round-robin whole
  // messages (SPLIT_DATA_ON_QPS=0), the nearest it has to DQPLB's segments.
  std::string hca;
  for (const auto& b : p.bonds) {
    if (!b.backend) continue;
    hca += (hca.empty() ? "=" : ",") + b.rdma_device + ":1";
  }
  if (!hca.empty()) add("NCCL_IB_HCA", hca);
  add("NCCL_IB_QPS_PER_CONNECTION", std::to_string(qps));
  add("NCCL_IB_SPLIT_DATA_ON_QPS", "0");
  add("NCCL_IB_GID_INDEX", std::to_string(t.ib_gid_index));
  add("NCCL_IB_TC", std::to_string(t.ib_traffic_class));
  add("NCCL_IB_TIMEOUT", std::to_string(t.ib_timeout));
  add("NCCL_IB_RETRY_CNT", std::to_string(t.ib_retry_cnt));
  for (const auto& b : p.bonds) {
    if (!b.backend) add("NCCL_SOCKET_IFNAME", "=" + b.name);  // bootstrap over the front end
  }
  return env;
}

}  // namespace hpn
