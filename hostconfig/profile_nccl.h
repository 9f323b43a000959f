// Where NCCLX and stock NCCL read a profile's transport settings.
//
// NCCLX picks a connection's QP setting by how far the peer is, from the
// topology file each rank reads (ctran CtranIbVirtualConn::setDefaultQPConfig):
//
//   same rack (same su, or same rtsw)  the plain variables: NCCL_CTRAN_IB_MAX_QPS,
//                                      _QP_SCALING_THRESHOLD, _QP_MAX_MSGS, _VC_MODE
//   same zone, another rack            NCCL_CTRAN_IB_QP_CONFIG_XRACK
//   same dc, another zone              NCCL_CTRAN_IB_QP_CONFIG_XZONE
//   another dc                         NCCL_CTRAN_IB_QP_CONFIG_XDC
//
// The profile maps dc = hall (building), zone = pod, su = segment, and leaves
// rtsw empty, which makes the four NCCLX levels the path classes:
// same-segment and cross-rail (one su: same rack), same-pod, same-hall,
// other-hall. NCCLX cannot tell the two classes of one su apart (a rank's
// topology file names no rail), so its same-rack variables carry the wider
// of the two, cross-rail's: a same-rail connection then has more in flight
// than it needs, none has less. su, not rtsw: NCCLX's parser
// refuses a topology with both set, and a host of a rail-optimized segment
// has sixteen ToRs, not one; its su comparison is the one NCCLX documents for
// rail topologies ("since PXN is enabled all ranks in the same SU are 1 hop
// away"), which is exactly the HPN segment.
#pragma once

#include <string>
#include <vector>

#include "hostconfig/path_class.h"
#include "hostconfig/profile.h"
#include "planner/spec.h"

namespace hpn {

// Where the env file says the topology file is installed on the host.
inline constexpr const char* kNcclxTopologyPath = "/etc/hpnctl/ncclx-topology";

std::vector<ClassProfile> class_profiles(const std::vector<PathClass>& classes,
                                         const TransportSpec& transport);

NcclxTopology ncclx_topology(int hall, int pod, int segment);

// NCCLX's variables, then stock NCCL's; every value free of spaces and
// quotes, so the file reads the same to sh, systemd's EnvironmentFile= and
// docker --env-file.
std::vector<EnvVar> nccl_environment(const HostProfile& profile, const TransportSpec& transport);

}  // namespace hpn
