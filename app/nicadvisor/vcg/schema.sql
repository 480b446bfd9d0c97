-- NIC Advisor compatibility database, schema version 1 (migration 1 of nicadvisor.vcg.db.MIGRATIONS).
-- Applied inside one transaction by the migration runner, which also sets PRAGMA user_version = 1.
-- Adapted from shared/design/research/schema.sql (vcg-data.md §5), reduced to what the seed data holds.
-- PCI IDs are 4 lower-case hex digits; NULL in did/svid/ssid means "any" (family- or device-level row).
-- Every data row carries `source` (the citation, verbatim from the seed CSV) and `trust` (trust_level.name).

-- Key/value facts about the database itself: format marker, seed file hash, seed time.
CREATE TABLE meta (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('format', 'nicadvisor-vcg');

-- How far a row can be trusted. rank: higher = more trusted (vcg-data.md §5.1: 100 certification, 50 vendor doc).
CREATE TABLE trust_level (
  name     TEXT PRIMARY KEY,
  rank     INTEGER NOT NULL UNIQUE,
  meaning  TEXT NOT NULL
);
INSERT INTO trust_level (name, rank, meaning) VALUES
 ('vcg',        100, 'compatibility-guide data (BCG/VCG, vSAN HCL): a certification record'),
 ('vendor-doc',  50, 'VMware/Broadcom or NIC vendor documentation: a statement, not a certification'),
 ('community',   20, 'blog post, review or forum: a third-party observation'),
 ('unverified',  10, 'source not classified');

-- ESXi releases as stated by a source. minor NULL = any minor ("4.x"); update_level 0 = no update named.
CREATE TABLE release (
  release_id    INTEGER PRIMARY KEY,
  label         TEXT NOT NULL UNIQUE,          -- 'ESXi 7.0 U3', 'ESXi 4.x', 'ESX 9.0'
  major         INTEGER NOT NULL,
  minor         INTEGER,
  update_level  INTEGER NOT NULL DEFAULT 0
);

-- A device as named by a source: PCI identity, model and the physical facts the source gives.
-- did NULL = every device of the vendor (family-level statement); svid/ssid NULL = any subsystem.
CREATE TABLE device (
  device_id        INTEGER PRIMARY KEY,
  vid              TEXT NOT NULL CHECK (length(vid) = 4 AND vid = lower(vid)),
  did              TEXT CHECK (did IS NULL OR (length(did) = 4 AND did = lower(did))),
  svid             TEXT CHECK (svid IS NULL OR (length(svid) = 4 AND svid = lower(svid))),
  ssid             TEXT CHECK (ssid IS NULL OR (length(ssid) = 4 AND ssid = lower(ssid))),
  vendor           TEXT NOT NULL,
  model            TEXT NOT NULL,
  pcie_gen         INTEGER,                    -- PCIe generation (4 = 16 GT/s per lane)
  pcie_width       INTEGER,                    -- lanes
  port_speed_gbps  INTEGER,                    -- Gbit/s per port
  ports            INTEGER,
  source           TEXT NOT NULL,
  trust            TEXT NOT NULL REFERENCES trust_level (name),
  CHECK (ssid IS NULL OR svid IS NOT NULL),
  CHECK (svid IS NULL OR did IS NOT NULL)
);
CREATE UNIQUE INDEX device_identity ON device (
  vid, ifnull(did, ''), ifnull(svid, ''), ifnull(ssid, ''), vendor, model,
  ifnull(pcie_gen, -1), ifnull(pcie_width, -1), ifnull(port_speed_gbps, -1), ifnull(ports, -1));
CREATE INDEX device_pci ON device (vid, did);

-- One statement of one source about one device: one seed CSV row. Groups the rows below it, which share
-- its release scope (listing_release). origin/origin_line = file and line the row came from.
CREATE TABLE listing (
  listing_id   INTEGER PRIMARY KEY,
  device_id    INTEGER NOT NULL REFERENCES device (device_id),
  origin       TEXT NOT NULL,                  -- 'nic_facts.csv'
  origin_line  INTEGER,                        -- file line (line 1 = header)
  source       TEXT NOT NULL,
  trust        TEXT NOT NULL REFERENCES trust_level (name)
);
CREATE INDEX listing_device ON listing (device_id);

CREATE TABLE listing_release (
  listing_id  INTEGER NOT NULL REFERENCES listing (listing_id) ON DELETE CASCADE,
  release_id  INTEGER NOT NULL REFERENCES release (release_id),
  PRIMARY KEY (listing_id, release_id)
);

-- A driver named by a listing. name = normalised module name (lower case, '_ens'/'-ens' and any
-- parenthesised remark removed: 'i40en_ens (Intel40en async)' -> 'i40en'); module = first token with '-' -> '_'.
CREATE TABLE driver (
  driver_id       INTEGER PRIMARY KEY,
  listing_id      INTEGER NOT NULL REFERENCES listing (listing_id) ON DELETE CASCADE,
  name            TEXT NOT NULL,
  module          TEXT NOT NULL,
  name_as_listed  TEXT NOT NULL,
  version_min     TEXT,                        -- as listed: '1.1.3', '231.0.153.0-1OEM.800'
  version_key     TEXT,                        -- sortable key of version_min (vcg-data.md §5.3)
  module_param    TEXT,                        -- module-parameter syntax the source gives (RSS/DRSS ...)
  max_rx_queues   INTEGER,                     -- per port
  source          TEXT NOT NULL,
  trust           TEXT NOT NULL REFERENCES trust_level (name)
);
CREATE INDEX driver_name ON driver (name);

-- Firmware listed with a driver (no seed rows yet: nic_facts.csv has no firmware column).
CREATE TABLE firmware (
  firmware_id         INTEGER PRIMARY KEY,
  listing_id          INTEGER NOT NULL REFERENCES listing (listing_id) ON DELETE CASCADE,
  driver_id           INTEGER REFERENCES driver (driver_id) ON DELETE CASCADE,
  version             TEXT NOT NULL,
  additional_version  TEXT,
  source              TEXT NOT NULL,
  trust               TEXT NOT NULL REFERENCES trust_level (name)
);

-- Feature vocabulary: code used in the code base, display_name as the guide spells it (vcg-data.md §2.4).
CREATE TABLE feature_name (
  code          TEXT PRIMARY KEY,
  display_name  TEXT NOT NULL,
  label         TEXT NOT NULL                  -- short human label for reports
);
INSERT INTO feature_name (code, display_name, label) VALUES
 ('geneve_offload',   'Geneve-Offload',                     'Geneve offload'),
 ('geneve_rx_filter', 'Geneve-Rx Filters',                  'Geneve Rx filter'),
 ('vxlan_offload',    'VXLAN-Offload',                      'VXLAN offload'),
 ('rss',              'RSS',                                'RSS'),
 ('ens',              'N-VDS Enhanced Datapath',            'ENS (Enhanced Datapath)'),
 ('ens_interrupt',    'Enhanced Datapath - Interrupt Mode', 'ENS interrupt mode'),
 ('ens_poll',         'Enhanced Datapath - Poll Mode',      'ENS poll mode'),
 ('netqueue',         'NetQueue',                           'NetQueue'),
 ('sriov',            'SR-IOV',                             'SR-IOV'),
 ('rdma_rocev2',      'RDMA (RoCE v2)',                     'RDMA (RoCE v2)');

CREATE TABLE feature_alias (
  alias  TEXT PRIMARY KEY COLLATE NOCASE,
  code   TEXT NOT NULL REFERENCES feature_name (code)
);
INSERT INTO feature_alias (alias, code) SELECT code, code FROM feature_name;
INSERT OR IGNORE INTO feature_alias (alias, code) SELECT display_name, code FROM feature_name;
INSERT OR IGNORE INTO feature_alias (alias, code) VALUES
 ('Geneve Offload', 'geneve_offload'),
 ('Geneve-Rx Filter', 'geneve_rx_filter'),
 ('Geneve Rx Filter', 'geneve_rx_filter'),
 ('VXLAN Offload', 'vxlan_offload'),
 ('ENS', 'ens'),
 ('EDP', 'ens'),
 ('Enhanced Datapath', 'ens'),
 ('N-VDS Enhanced Data Path', 'ens'),
 ('Enhanced Data Path - Interrupt Mode', 'ens_interrupt'),
 ('N-VDS Enhanced Data Path - Interrupt Mode', 'ens_interrupt'),
 ('Enhanced Datapath Standard', 'ens_interrupt'),
 ('Enhanced Data Path - Poll Mode', 'ens_poll'),
 ('N-VDS Enhanced Data Path - Poll Mode', 'ens_poll'),
 ('Enhanced Datapath Dedicated', 'ens_poll'),
 ('RoCE v2', 'rdma_rocev2');

-- A feature a listing states (supported 1) or denies (supported 0); an unknown feature has no row.
-- derived_from is set when the row is inferred from another cell (e.g. 'ens' from an '_ens' driver name).
CREATE TABLE feature (
  feature_id    INTEGER PRIMARY KEY,
  listing_id    INTEGER NOT NULL REFERENCES listing (listing_id) ON DELETE CASCADE,
  code          TEXT NOT NULL REFERENCES feature_name (code),
  supported     INTEGER NOT NULL CHECK (supported IN (0, 1)),
  derived_from  TEXT,
  source        TEXT NOT NULL,
  trust         TEXT NOT NULL REFERENCES trust_level (name),
  UNIQUE (listing_id, code)
);
