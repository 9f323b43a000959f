#!/usr/bin/env python3
"""Writes the binary seeds of tests/fuzz/corpus/ (IOAM, INT-MD, probe payloads).

The bytes are built here, independently of the C++ encoders, from the layouts
in FIELD.md section 2 and probe/payload.h, so a seed is also a check that the
decoders read what the formats say. Run from anywhere; rewrites only the
files it names. The text seeds (specs, JSON, CSV) are copies of real inputs
and are not generated.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
LAB_NS = 123  # dataplane/lab_topology.h kLabIoamNamespace
SRC = bytes.fromhex("20010db8000000000000000000000001")
DST = bytes.fromhex("20010db8000000000000000000000002")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def ioam_hbh(hops, room=10, ns=LAB_NS, trace_type=0xC00000, flags=0, next_header=17, node_len=2):
    """Hop-by-Hop header: PadN(2), IOAM pre-allocated trace (RFC 9197/9486),
    records of (hop_limit, node_id, ingress, egress) written newest first at the
    end of the data space, as a Linux transit does; PadN to 8n bytes."""
    data = bytearray(room * node_len * 4)
    remlen = (room - len(hops)) * node_len
    at = len(data)
    for hl, node, iif, eif in hops:  # path order; each one writes before the last
        at -= node_len * 4
        data[at:at + 8] = struct.pack(">I HH", (hl << 24) | node, iif, eif)
    trace_hdr = struct.pack(">HH I", ns, (node_len << 11) | (flags << 7) | remlen, trace_type << 8)
    opt_data = bytes([0, 0]) + trace_hdr + bytes(data)  # reserved, IOAM type 0
    option = bytes([0x31, len(opt_data)]) + opt_data
    body = bytes([next_header, 0]) + bytes([1, 0]) + option
    pad = (-len(body)) % 8
    if pad == 1:
        body += b"\x00"  # Pad1
    elif pad:
        body += bytes([1, pad - 2]) + bytes(pad - 2)
    return bytes([body[0], len(body) // 8 - 1]) + body[2:]


def udp6_checksum(udp):
    pseudo = SRC + DST + struct.pack(">I3xB", len(udp), 17)
    data = pseudo + udp + (b"\x00" if len(udp) % 2 else b"")
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    c = ~s & 0xFFFF
    return c or 0xFFFF


def ipv6_udp(hbh, payload, hop_limit=64, sport=40000, dport=17768):
    udp = bytearray(struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload)
    udp[6:8] = struct.pack(">H", udp6_checksum(bytes(udp)))
    ip = struct.pack(">IHBB", 0x60000000, len(hbh) + len(udp), 0, hop_limit) + SRC + DST
    return ip + hbh + bytes(udp)


def probe_payload(run_id, probe_id, attempt=0, sent_ns=1_700_000_000_000_000_000):
    return struct.pack(">IBBBBQQQ", 0x48504E70, 1, 1, attempt, 0, run_id, probe_id, sent_ns)


def reply_payload(run_id, probe_id, port, trace):
    head = struct.pack(">IBBBBQQQ", 0x48504E70, 1, 2, 0, 0, run_id, probe_id, 1_700_000_000_000_000_000)
    return (head + struct.pack(">QQ", 1_700_000_000_000_100_000, 1_700_000_000_000_200_000)
            + bytes([len(port)]) + port.encode() + struct.pack(">H", len(trace)) + trace)


def fnv1a(text):
    h = 0xcbf29ce484222325
    for c in text.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


# A host -> ToR -> agg -> ToR -> host path of the lab pod: node ids and port ids.
PATH = [(63, 0x010001, 1, 17), (62, 0x020001, 1, 5), (61, 0x010005, 17, 3)]

empty = ioam_hbh([])
three = ioam_hbh(PATH)
write("fuzz_ioam_trace", "hbh-empty-10-hops", empty)
write("fuzz_ioam_trace", "hbh-3-hops", three)
write("fuzz_ioam_trace", "hbh-full-overflow",
      ioam_hbh([(60 - i, 0x010000 + i, i, i + 1) for i in range(10)], flags=0x8))
# Bits 0, 1, 8 and 9 (short and wide node and interface ids): 6 words a node.
write("fuzz_ioam_trace", "hbh-wide-fields", ioam_hbh([], room=4, trace_type=0xC0C000, node_len=6))
write("fuzz_ioam_trace", "hbh-other-namespace", ioam_hbh(PATH[:1], ns=7))
write("fuzz_ioam_trace", "ipv6-udp-3-hops", ipv6_udp(three, probe_payload(fnv1a("lab-run"), 1)))
write("fuzz_ioam_trace", "ipv6-udp-empty", ipv6_udp(empty, probe_payload(fnv1a("lab-run"), 2)))

# INT-MD v2.1: the spec's own example (shim length 7, hop ML 2, two hops,
# bitmap 0x9000) as the sink sees it; a wiring probe (0xC000) before and
# after two hops; the same in a UDP datagram to port 17768.
spec_example = bytes([0x14, 0x07, 0x13, 0x88, 0x20, 0x00, 0x02, 0x06, 0x90, 0x00, 0x00, 0x00,
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, 0x02, 0x00, 0x00, 0x40,
                      0x00, 0x00, 0x00, 0x11, 0x01, 0x00, 0x00, 0x20]) + b"pay"


def int_wiring(hops, rhc=8):
    stack = b"".join(struct.pack(">IHH", node, iif, eif) for node, iif, eif in reversed(hops))
    length = 3 + len(stack) // 4
    shim = bytes([0x14, length]) + struct.pack(">H", 5000)
    # Ver 2, D (0x08; E, M clear), reserved, hop ML 2 (low 5 bits of byte 2), RHC.
    md = struct.pack(">BBBB HH HH", 0x20 | 0x08, 0x00, 0x02, rhc - len(hops), 0xC000, 0, 0, 0)
    return shim + md + stack


write("fuzz_int_md", "spec-example", spec_example)
write("fuzz_int_md", "wiring-empty", int_wiring([]))
write("fuzz_int_md", "wiring-2-hops", int_wiring([(1, 101, 201), (2, 102, 202)]) + b"payload")
udp = int_wiring([(1, 101, 201)]) + b"x"
write("fuzz_int_md", "udp-wiring-1-hop", struct.pack(">HHHH", 40000, 17768, 8 + len(udp), 0) + udp)

run = fnv1a("lab-run")
write("fuzz_probe_payload", "probe", probe_payload(run, 1))
write("fuzz_probe_payload", "probe-retry", probe_payload(run, 7, attempt=2))
write("fuzz_probe_payload", "reply-3-hops", reply_payload(run, 1, "etp1a", three))
write("fuzz_probe_payload", "reply-empty-trace", reply_payload(run, 2, "nic1p1", empty))
write("fuzz_probe_payload", "reply-no-trace", reply_payload(run, 3, "p", b""))
