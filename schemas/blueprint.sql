-- blueprint.db: the complete plan of an HPN fabric, written by `hpnctl plan`.
-- Schema version 4 (PRAGMA user_version; 2 added interfaces.mac, 3 cables.stock_length_m,
-- 4 the structured cabling: patch_panels, trunks, legs, and the BOM's fibre columns). NULL where a column does not apply.
-- The tables are created first and filled; the indexes after the marker below
-- are built once the rows are in, which is several times faster than keeping
-- them up to date row by row.

-- Provenance: format, schema_version, tool_version, spec_name, spec_yaml.
CREATE TABLE meta (
  key   TEXT NOT NULL,
  value TEXT NOT NULL
);

-- Physical racks: hall (building), row and position in the row.
CREATE TABLE racks (
  name     TEXT NOT NULL,
  hall     INTEGER NOT NULL,
  row      INTEGER NOT NULL,
  position INTEGER NOT NULL,
  purpose  TEXT NOT NULL            -- hosts | network | aggregation | core
);

-- Every device. role: host | tor | agg | core | frontend; state: active | backup.
-- pod and segment are 0-based, plane and rail 1-based (rail r = back-end NIC r).
-- node_id is the per-hop telemetry node ID (24 bits); asn is NULL for hosts.
CREATE TABLE devices (
  name     TEXT NOT NULL,
  role     TEXT NOT NULL CHECK (role IN ('host', 'tor', 'agg', 'core', 'frontend')),
  pod      INTEGER,
  segment  INTEGER,
  plane    INTEGER,
  rail     INTEGER,
  node_id  INTEGER NOT NULL CHECK (node_id BETWEEN 0 AND 16777214),
  rack     TEXT,
  ru       INTEGER,
  state    TEXT NOT NULL CHECK (state IN ('active', 'backup')),
  asn      INTEGER,
  panel    TEXT NOT NULL            -- the device's front panel, see panels
);

-- Front panels: the ports of one device model, stored once per model.
-- port_id is the interface ID reported in telemetry (16 bits, unique per
-- panel): cage x 16 for a cage, plus 1 + sub-port for a breakout port. nic is
-- set on host NIC ports (0 = front-end NIC). breakout_of names the parent
-- cage of a breakout port. use: nic | host | backup | uplink | downlink |
-- spare | cage (a broken-out parent) | external (cabled outside this plan,
-- e.g. front-end leaf uplinks). seq keeps the panel's front-to-back order.
CREATE TABLE panels (
  panel       TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  port        TEXT NOT NULL,
  port_id     INTEGER NOT NULL CHECK (port_id BETWEEN 0 AND 65534),
  speed_gbps  INTEGER NOT NULL,
  nic         INTEGER,
  breakout_of TEXT,
  use         TEXT NOT NULL
);

-- Every port of every device: each device with its panel's ports.
CREATE VIEW ports (device, port, port_id, speed_gbps, nic, breakout_of, use) AS
  SELECT d.name, p.port, p.port_id, p.speed_gbps, p.nic, p.breakout_of, p.use
  FROM devices AS d JOIN panels AS p ON p.panel = d.panel;

-- One row per cable; the a-end is on the lower tier (host, ToR, agg, core).
-- kind: host-tor | tor-agg | agg-core | frontend; state: active | backup.
-- The label printed for each end names the cable, that end, and where the
-- far end goes; it is computed from the row, so it cannot drift from it.
-- length_m is the run the floor plan estimates; stock_length_m the stocked
-- cord that covers it (media.length_bins_m), the one the bill of materials
-- counts and a technician takes from the shelf. A patched run (see legs)
-- has length_m the whole channel and stock_length_m NULL: each leg has its
-- own, and its labels name the panel port each end's cord goes to.
CREATE TABLE cables (
  cable_id   TEXT NOT NULL,
  kind       TEXT NOT NULL,
  a_device   TEXT NOT NULL,
  a_port     TEXT NOT NULL,
  z_device   TEXT NOT NULL,
  z_port     TEXT NOT NULL,
  speed_gbps INTEGER NOT NULL,
  state      TEXT NOT NULL,
  length_m   INTEGER NOT NULL,
  stock_length_m INTEGER,
  media      TEXT NOT NULL,
  a_rack     TEXT NOT NULL,
  a_ru       INTEGER NOT NULL,
  z_rack     TEXT NOT NULL,
  z_ru       INTEGER NOT NULL,
  label_a    TEXT NOT NULL,
  label_z    TEXT NOT NULL,
  legs       INTEGER NOT NULL,      -- 1: one cord; 3 or 5: through panels, see legs
  a_panel    TEXT,                  -- the panel port the a-end's cord plugs into ("PP-H0-R03-A:12")
  z_panel    TEXT
);

-- Structured cabling (hpn-pod.yaml(5), media.patch_beyond_m): a patch
-- panel at the head of each row a patched run leaves or enters (row set),
-- one per hall for runs between halls (row NULL). ports: ports in use.
CREATE TABLE patch_panels (
  name  TEXT NOT NULL,
  hall  INTEGER NOT NULL,
  row   INTEGER,
  ports INTEGER NOT NULL
);

-- Trunks between two panels, each lane one patched run. lanes: in use.
-- polarity per TIA-568.3-D: B (MPO, Type B throughout) or A-to-B (duplex).
CREATE TABLE trunks (
  trunk_id       TEXT NOT NULL,
  a_panel        TEXT NOT NULL,
  z_panel        TEXT NOT NULL,
  media          TEXT NOT NULL,
  fibre          TEXT NOT NULL,   -- OM3 | OM4 | OM5 | OS1 | OS2
  connector      TEXT NOT NULL,   -- MPO-12 | MPO-16 | LC-duplex
  polarity       TEXT NOT NULL,
  lanes          INTEGER NOT NULL,
  length_m       INTEGER NOT NULL,
  stock_length_m INTEGER NOT NULL
);

-- The legs of every patched run, from the cable's a-end (leg 1): a patch
-- cord (trunk_id NULL) or a trunk's lane, from a point to a point; a point
-- is a panel port, or the cable's own device port where the panel is NULL.
CREATE TABLE legs (
  cable_id       TEXT NOT NULL,
  leg            INTEGER NOT NULL,
  from_panel     TEXT,
  from_port      INTEGER,
  to_panel       TEXT,
  to_port        INTEGER,
  trunk_id       TEXT,
  lane           INTEGER,
  length_m       INTEGER NOT NULL,
  stock_length_m INTEGER NOT NULL
);

-- Core forwarding (HPN §7): traffic for dst_pod arriving on in_port leaves on
-- out_port, the same index in dst_pod's port group; fallback applies when
-- out_port is down. status: active (both pods built) | reserved.
CREATE TABLE core_rules (
  core     TEXT NOT NULL,
  in_port  TEXT NOT NULL,
  dst_pod  INTEGER NOT NULL,
  out_port TEXT NOT NULL,
  fallback TEXT NOT NULL,
  status   TEXT NOT NULL
);

-- Layer-3 interfaces. purpose: host (a NIC bond; nic 0 is the front end),
-- gateway (a ToR's or front-end leaf's address toward its hosts), loopback.
-- mac: a host bond's MAC, and the gateway MAC that both ToRs of a pair
-- answer with (addressing.gateway_mac), so a bond's frames are accepted by
-- whichever ToR its hash picks; NULL on loopbacks.
CREATE TABLE interfaces (
  device    TEXT NOT NULL,
  interface TEXT NOT NULL,
  purpose   TEXT NOT NULL,
  nic       INTEGER,
  ipv4      TEXT,
  ipv4_len  INTEGER,
  ipv6      TEXT,
  ipv6_len  INTEGER,
  mac       TEXT
);

-- Point-to-point addresses of every switch-to-switch cable (tor-agg,
-- agg-core): the lower address of each pair at the cable's a-end.
CREATE TABLE links (
  cable_id TEXT NOT NULL,
  a_ipv4   TEXT NOT NULL,
  z_ipv4   TEXT NOT NULL,
  ipv4_len INTEGER NOT NULL,
  a_ipv6   TEXT NOT NULL,
  z_ipv6   TEXT NOT NULL,
  ipv6_len INTEGER NOT NULL
);

-- Bill of materials. category: device | cable | optic | trunk | panel;
-- length_m is the stocked length bin of a cable or trunk, NULL otherwise;
-- fibre, connector and polarity on fibre parts (patch cords, optics,
-- trunks, panels), NULL otherwise.
CREATE TABLE bom (
  category  TEXT NOT NULL,
  part      TEXT NOT NULL,
  media     TEXT,
  length_m  INTEGER,
  count     INTEGER NOT NULL,
  fibre     TEXT,
  connector TEXT,
  polarity  TEXT
);

-- Physical-plan warnings: a cable the chosen media cannot reach. cause
-- groups them (mmf-beyond-reach).
CREATE TABLE warnings (
  cable   TEXT,
  cause   TEXT NOT NULL,
  message TEXT NOT NULL
);

-- @indexes
CREATE UNIQUE INDEX meta_key ON meta (key);
CREATE UNIQUE INDEX racks_name ON racks (name);
CREATE UNIQUE INDEX devices_name ON devices (name);
CREATE UNIQUE INDEX devices_node_id ON devices (node_id);
CREATE INDEX devices_place ON devices (role, pod, segment);
CREATE UNIQUE INDEX panels_port ON panels (panel, port);
CREATE UNIQUE INDEX panels_port_id ON panels (panel, port_id);
CREATE UNIQUE INDEX cables_a ON cables (a_device, a_port);
CREATE UNIQUE INDEX cables_z ON cables (z_device, z_port);
