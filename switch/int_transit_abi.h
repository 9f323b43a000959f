/* What the INT transit (switch/int_transit.bpf.c) and its loader share:
 * the maps' keys and values and the counters' order. C, so the eBPF
 * program built by clang -target bpf and the C++ loader read one
 * definition. The wire format itself is P4.org INT-MD v2.1 over UDP, as
 * probe/int_md.h describes it. */
#ifndef HPN_SWITCH_INT_TRANSIT_ABI_H
#define HPN_SWITCH_INT_TRANSIT_ABI_H

#include <linux/types.h>

/* hpn_int_config[0]: the switch's INT settings. node_id 0: the program
 * forwards everything untouched (not configured). */
struct hpn_int_config {
  __u32 node_id;   /* the switch's INT node ID (the blueprint's, as IOAM's) */
  __u16 udp_port;  /* INT signalled by this UDP destination port; 0: not by port */
  __u8 dscp;       /* INT signalled by DSCP: (dscp & dscp_mask) == dscp */
  __u8 dscp_mask;  /* 0: not by DSCP */
};

/* hpn_int_ports: ifindex -> the port's INT interface ID (its low 16 bits
 * are the level-1 ID written on the wire). */
#define HPN_INT_MAX_PORTS 4096

/* hpn_int_counters: per-CPU packet counts, by outcome. */
enum hpn_int_counter {
  HPN_INT_PUSHED = 0,     /* this hop's metadata pushed */
  HPN_INT_EXCEEDED = 1,   /* remaining hop count 0: E set, nothing pushed */
  HPN_INT_MTU = 2,        /* no room on the egress port or in the shim: M set */
  HPN_INT_MALFORMED = 3,  /* signalled as INT but not an INT-MD v2 stack it can extend */
  HPN_INT_NO_PORT_ID = 4, /* pushed, but a port had no ID: its ports written as unavailable */
  HPN_INT_FAILED = 5,     /* the kernel refused to grow the packet: forwarded untouched */
  HPN_INT_COUNTERS = 6
};

#endif
