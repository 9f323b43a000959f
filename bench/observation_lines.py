#!/usr/bin/env python3
"""Writes N observation lines (schemas/observation.schema.json) about a plan:
hosts, ports and addresses of its blueprint.db, three hops through its
switches, every line a different probe, as a pod's probe agents write them.
For bench/observation_memory.sh and the reader's memory test.

    observation_lines.py PLAN_DIR N [HOPS] > FILE

HOPS (default 3) hops per line; the records differ in probe number, source
port and endpoints, so that nothing but the plan's own names repeats."""
import json
import random
import sqlite3
import sys


def main():
    plan, count = sys.argv[1], int(sys.argv[2])
    hops = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    db = sqlite3.connect(f"file:{plan}/blueprint.db?immutable=1", uri=True)
    ports = db.execute("SELECT p.device, p.port, i.ipv6 FROM ports p JOIN devices d ON d.name = p.device"
                       " JOIN interfaces i ON i.device = p.device AND i.nic = p.nic AND i.purpose = 'host'"
                       " WHERE d.role = 'host' AND p.nic >= 1").fetchall()
    nodes = [r[0] for r in db.execute("SELECT node_id FROM devices WHERE role IN ('tor', 'agg')")]
    rng = random.Random(1)
    out = sys.stdout
    for probe in range(count):
        src, src_port, src_address = ports[rng.randrange(len(ports))]
        dst, dst_port, dst_address = ports[rng.randrange(len(ports))]
        trace = [{"node_id": rng.choice(nodes), "ingress_if": rng.randrange(1, 2048),
                  "egress_if": rng.randrange(1, 2048), "hop_limit": 63 - k} for k in range(hops)]
        out.write(json.dumps({
            "run": f"run-{src}", "probe": probe, "direction": "forward",
            "src": {"device": src, "port": src_port, "address": src_address, "udp_port": 49152 + probe % 16384},
            "dst": {"device": dst, "address": dst_address, "udp_port": 17768},
            "received": True, "rx_port": dst_port, "hops": trace,
            "sent_ns": 1_700_000_000_000_000_000 + probe * 1000,
            "received_ns": 1_700_000_000_000_000_000 + probe * 1000 + 5000,
        }, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
