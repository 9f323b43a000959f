/* The INT transit of a Linux switch: a tc program on each port's egress
 * that pushes this hop's INT-MD metadata (P4.org INT Dataplane
 * Specification v2.1, INT-MD over UDP with the shim header) onto the probes
 * it forwards. probe/int_md.h describes the format, and int_md_transit()
 * there is the model this program is tested against, packet for packet
 * (tests/switch/int_transit_test.cpp, through BPF_PROG_TEST_RUN).
 *
 * On egress both ports are known: skb->ifindex (out) and
 * skb->ingress_ifindex (in). The hop's record is hop-ML words: the node ID
 * (instruction bit 0) and the level-1 ingress and egress port IDs (bit 1)
 * where the bitmap asks for them, every other word all ones, which the
 * spec reserves for "this hop cannot supply it". Each hop decrements the
 * Remaining Hop Count; at zero it sets E and pushes nothing; without room
 * on the egress port (or in the shim's 8-bit length) it sets M and pushes
 * nothing.
 *
 * The record goes between the MD header and the stack: the kernel makes
 * room right after the IP header (bpf_skb_adjust_room), the UDP header,
 * shim and MD header move into it, and the record takes their old place.
 * The IP length, UDP length and shim length grow by the record, and a
 * non-zero UDP checksum is updated incrementally (RFC 1624); a zero one
 * (IPv4 without a checksum, or an IPv6 probe sent with UDP_NO_CHECK6_TX)
 * stays zero. Packets whose checksum the sending host left to offload
 * (CHECKSUM_PARTIAL, only ever a switch's own) are not INT probes here.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "switch/int_transit_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct hpn_int_config);
} hpn_int_config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, HPN_INT_MAX_PORTS);
  __type(key, __u32);
  __type(value, __u32);
} hpn_int_ports SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, HPN_INT_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} hpn_int_counters SEC(".maps");

#define UDP_BYTES 8
#define SHIM_BYTES 4
#define MD_BYTES 12
#define MOVED_BYTES (UDP_BYTES + SHIM_BYTES + MD_BYTES)
#define MAX_HOP_ML 31 /* 5 bits */
#define MAX_RECORD_BYTES (MAX_HOP_ML * 4)

/* MD header, first byte: version (4 bits), then D, E, M. */
#define MD_FLAG_E 0x04
#define MD_FLAG_M 0x02
/* Instruction bitmap: bit 0 is the most significant of the 16. */
#define BIT_NODE_ID 0x8000
#define BIT_L1_PORTS 0x4000
#define RESERVED_BITS 0x007E /* bits 9-14 */

static __always_inline void count(__u32 what) {
  __u64 *n = bpf_map_lookup_elem(&hpn_int_counters, &what);
  if (n) *n += 1;
}

/* Words one hop pushes for the bitmap's baseline instructions (bits 0-8,
 * and 15, the checksum complement). */
static __always_inline __u32 baseline_words(__u16 bitmap) {
  /* Bits 4, 5 (timestamps) and 6 (level-2 ports) are two words each. */
  static const __u8 words[16] = {1, 1, 1, 1, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1};
  __u32 n = 0;
#pragma unroll
  for (int b = 0; b < 16; ++b) {
    if (bitmap & (0x8000 >> b)) n += words[b];
  }
  return n;
}

/* One's complement arithmetic for the incremental checksum update. */
static __always_inline __u32 csum_change(__u32 sum, __u16 from, __u16 to) {
  return sum + (__u16)~from + to;
}
static __always_inline __u16 csum_fold(__u32 sum) {
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)sum;
}

/* Sets flag bits in the MD header's first byte (at `md`), keeping a
 * non-zero UDP checksum (at `check`) right. */
static __always_inline int set_md_flag(struct __sk_buff *skb, __u32 md, __u32 check, __u8 flag) {
  __u8 word[2];
  __u16 sum;
  if (bpf_skb_load_bytes(skb, md, word, 2) || bpf_skb_load_bytes(skb, check, &sum, 2)) return -1;
  const __u16 from = ((__u16)word[0] << 8) | word[1];
  word[0] |= flag;
  const __u16 to = ((__u16)word[0] << 8) | word[1];
  if (sum != 0) {
    __u16 updated = ~csum_fold(csum_change((__u16)~bpf_ntohs(sum), from, to));
    if (updated == 0) updated = 0xffff;
    sum = bpf_htons(updated);
    if (bpf_skb_store_bytes(skb, check, &sum, 2, BPF_F_RECOMPUTE_CSUM)) return -1;
  }
  return bpf_skb_store_bytes(skb, md, word, 1, BPF_F_RECOMPUTE_CSUM);
}

SEC("tc")
int hpn_int_transit(struct __sk_buff *skb) {
  __u32 zero = 0;
  const struct hpn_int_config *config = bpf_map_lookup_elem(&hpn_int_config, &zero);
  if (!config || config->node_id == 0) return TC_ACT_OK;

  void *data = (void *)(long)skb->data;
  void *end = (void *)(long)skb->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end) return TC_ACT_OK;
  const __u32 l3 = sizeof(*eth);
  __u32 l4;
  __u8 dscp;
  int v4;
  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = data + l3;
    if ((void *)(ip + 1) > end) return TC_ACT_OK;
    /* Options or a fragment: the kernel grows only after a bare header,
     * and no probe is either. */
    if (ip->protocol != IPPROTO_UDP || ip->ihl != 5 || (ip->frag_off & bpf_htons(0x3fff))) return TC_ACT_OK;
    dscp = ip->tos >> 2;
    l4 = l3 + sizeof(*ip);
    v4 = 1;
  } else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *ip6 = data + l3;
    if ((void *)(ip6 + 1) > end) return TC_ACT_OK;
    /* INT over UDP right after the fixed header; IOAM's hop-by-hop probes
     * are the kernel's to stamp. */
    if (ip6->nexthdr != IPPROTO_UDP) return TC_ACT_OK;
    dscp = (__u8)(((ip6->priority << 4) | (ip6->flow_lbl[0] >> 4)) >> 2);
    l4 = l3 + sizeof(*ip6);
    v4 = 0;
  } else {
    return TC_ACT_OK;
  }
  struct udphdr *udp = data + l4;
  if ((void *)(udp + 1) > end) return TC_ACT_OK;
  const int by_port = config->udp_port != 0 && udp->dest == bpf_htons(config->udp_port);
  const int by_dscp = config->dscp_mask != 0 && (dscp & config->dscp_mask) == config->dscp;
  if (!by_port && !by_dscp) return TC_ACT_OK;

  /* Signalled as INT: from here on, what is not a stack this hop can
   * extend is counted as malformed and forwarded untouched. */
  __u8 *shim = (void *)(udp + 1);
  if ((void *)(shim + SHIM_BYTES + MD_BYTES) > end) {
    count(HPN_INT_MALFORMED);
    return TC_ACT_OK;
  }
  __u8 *md = shim + SHIM_BYTES;
  const __u32 shim_words = shim[1];
  const __u32 udp_len = bpf_ntohs(udp->len);
  const __u32 hop_ml = md[2] & 0x1f;
  const __u32 remaining = md[3];
  const __u16 bitmap = ((__u16)md[4] << 8) | md[5];
  const __u32 base = baseline_words(bitmap);
  if ((shim[0] >> 4) != 1 /* INT-MD */ || ((shim[0] >> 2) & 3) == 3 || (md[0] >> 4) != 2 /* v2.x */ ||
      shim_words * 4 < MD_BYTES || udp_len < UDP_BYTES + SHIM_BYTES + shim_words * 4 || l4 + udp_len > skb->len ||
      (bitmap & RESERVED_BITS) || hop_ml < base) {
    count(HPN_INT_MALFORMED);
    return TC_ACT_OK;
  }
  const __u32 stack_words = shim_words - MD_BYTES / 4;
  if (hop_ml != 0 && stack_words % hop_ml != 0) {
    count(HPN_INT_MALFORMED);
    return TC_ACT_OK;
  }
  const __u32 md_at = l4 + UDP_BYTES + SHIM_BYTES;
  const __u32 check_at = l4 + 6;
  if (remaining == 0) {
    count(set_md_flag(skb, md_at, check_at, MD_FLAG_E) ? HPN_INT_FAILED : HPN_INT_EXCEEDED);
    return TC_ACT_OK;
  }
  const __u32 grow = hop_ml * 4;
  __u32 mtu = 0;
  if (shim_words + hop_ml > 255 || bpf_check_mtu(skb, skb->ifindex, &mtu, (__s32)grow, 0) != 0) {
    count(set_md_flag(skb, md_at, check_at, MD_FLAG_M) ? HPN_INT_FAILED : HPN_INT_MTU);
    return TC_ACT_OK;
  }

  /* This hop's record: all ones (unavailable), then what it knows. */
  __u8 record[MAX_RECORD_BYTES];
  __builtin_memset(record, 0xff, sizeof(record));
  __u32 at = 0;
  if (bitmap & BIT_NODE_ID) {
    const __u32 id = bpf_htonl(config->node_id);
    __builtin_memcpy(record, &id, 4);
    at = 4;
  }
  if (bitmap & BIT_L1_PORTS) {
    __u32 in = skb->ingress_ifindex, out = skb->ifindex;
    const __u32 *in_id = bpf_map_lookup_elem(&hpn_int_ports, &in);
    const __u32 *out_id = bpf_map_lookup_elem(&hpn_int_ports, &out);
    if (in_id && out_id) {
      const __u16 ports[2] = {bpf_htons((__u16)*in_id), bpf_htons((__u16)*out_id)};
      if (at == 4) {
        __builtin_memcpy(record + 4, ports, 4);
      } else {
        __builtin_memcpy(record, ports, 4);
      }
    } else {
      count(HPN_INT_NO_PORT_ID);
    }
  }

  /* The moved headers, changed as they will read: lengths grown, one hop
   * fewer to go; the checksum updated for those changes and the record. */
  __u8 moved[MOVED_BYTES];
  if (grow != 0 && bpf_skb_adjust_room(skb, (__s32)grow, BPF_ADJ_ROOM_NET, 0) != 0) {
    count(HPN_INT_FAILED);
    return TC_ACT_OK;
  }
  if (bpf_skb_load_bytes(skb, l4 + grow, moved, MOVED_BYTES) != 0) goto broken;
  {
    const __u16 new_len = (__u16)(udp_len + grow);
    const __u16 shim_from = ((__u16)moved[8] << 8) | moved[9];
    const __u16 hops_from = ((__u16)moved[UDP_BYTES + SHIM_BYTES + 2] << 8) | moved[UDP_BYTES + SHIM_BYTES + 3];
    moved[4] = new_len >> 8;
    moved[5] = new_len & 0xff;
    moved[9] = (__u8)(shim_words + hop_ml);
    moved[UDP_BYTES + SHIM_BYTES + 3] = (__u8)(remaining - 1);
    const __u16 shim_to = ((__u16)moved[8] << 8) | moved[9];
    const __u16 hops_to = ((__u16)moved[UDP_BYTES + SHIM_BYTES + 2] << 8) | moved[UDP_BYTES + SHIM_BYTES + 3];
    const __u16 check = ((__u16)moved[6] << 8) | moved[7];
    if (check != 0) {
      /* The length twice (pseudo-header and UDP header), the shim's and
       * the hop count's words, and the record's words (from zero). The
       * record is a whole number of 4-byte words, so what follows it
       * keeps its 16-bit alignment and its sum. */
      __u32 sum = (__u16)~check;
      sum = csum_change(sum, (__u16)udp_len, new_len);
      sum = csum_change(sum, (__u16)udp_len, new_len);
      sum = csum_change(sum, shim_from, shim_to);
      sum = csum_change(sum, hops_from, hops_to);
#pragma unroll
      for (int i = 0; i < MAX_RECORD_BYTES; i += 2) {
        if ((__u32)i < grow) sum += ((__u16)record[i] << 8) | record[i + 1];
      }
      __u16 updated = ~csum_fold(sum);
      if (updated == 0) updated = 0xffff;
      moved[6] = updated >> 8;
      moved[7] = updated & 0xff;
    }
  }
  if (bpf_skb_store_bytes(skb, l4, moved, MOVED_BYTES, BPF_F_RECOMPUTE_CSUM) != 0) goto broken;
  if (grow != 0 && bpf_skb_store_bytes(skb, l4 + MOVED_BYTES, record, grow & 0x7f, BPF_F_RECOMPUTE_CSUM) != 0) goto broken;
  if (v4) {
    __u16 old_len, new_len;
    if (bpf_skb_load_bytes(skb, l3 + 2, &old_len, 2) != 0) goto broken;
    new_len = bpf_htons(bpf_ntohs(old_len) + grow);
    if (bpf_l3_csum_replace(skb, l3 + 10, old_len, new_len, 2) != 0) goto broken;
    if (bpf_skb_store_bytes(skb, l3 + 2, &new_len, 2, 0) != 0) goto broken;
  } else {
    __u16 old_len, new_len;
    if (bpf_skb_load_bytes(skb, l3 + 4, &old_len, 2) != 0) goto broken;
    new_len = bpf_htons(bpf_ntohs(old_len) + grow);
    if (bpf_skb_store_bytes(skb, l3 + 4, &new_len, 2, 0) != 0) goto broken;
  }
  count(HPN_INT_PUSHED);
  return TC_ACT_OK;

broken:
  /* Grown but not rewritten: a packet no one could read. */
  count(HPN_INT_FAILED);
  return TC_ACT_SHOT;
}
