/* datapath.h — how a served byte moves: the DRAM touches of each serving data path.
 *
 * What it models: a data path is how the bytes move (sendfile, or read/write through the server's
 * buffer) and where crypto runs (none, software kTLS, user-space OpenSSL, NIC inline kTLS); each
 * path is a list of touches (who touches which buffer, read or write), e.g. read_write 8 touches,
 * read_write_ktls 10, sendfile 2, sendfile_sw_ktls 4, sendfile_nic_ktls 2; a reused user buffer's
 * touches scaled by the share that misses the cache (software.h), plus per-byte metadata traffic
 * (cpu_meta_bytes_per_byte()) and inbound ACKs. A leaf table: it calls no component.
 * Sources: the data-flow slides of the talks (published.yaml, datapath_dram_touches; euro2022).
 * Leaves out: page-cache hits (pagecache.h scales the disk DMA write), retransmissions
 * (the NIC re-DMAs whole TLS records), TLS record framing overhead (29 B per 16 KB).
 * Evidence and history: docs/model/datapath.md.
 */
#ifndef MODELS_APPLIANCE_DATAPATH_H
#define MODELS_APPLIANCE_DATAPATH_H
#include "models/appliance/app_enum.h"
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

/* Serving data paths (software.data_path, workload.alt_path). */
#define DATAPATH_MAP(X)                            \
  X(DP_READ_WRITE, "read_write")                   \
  X(DP_READ_WRITE_KTLS, "read_write_ktls")         \
  X(DP_SENDFILE, "sendfile")                       \
  X(DP_SENDFILE_SW_KTLS, "sendfile_sw_ktls")       \
  X(DP_SENDFILE_NIC_KTLS, "sendfile_nic_ktls")     \
  X(DP_READ_WRITE_NIC_KTLS, "read_write_nic_ktls") \
  X(DP_READ_WRITE_PLAIN, "read_write_plain")
typedef enum { DATAPATH_MAP(APP_ENUM_ID) DP_COUNT } DataPath;

/* How a path moves the bytes, and where its crypto runs (the two choices above). */
typedef enum { MOVE_SENDFILE, MOVE_READ_WRITE } DpMove;
typedef enum { TLS_NONE, TLS_KERNEL_CPU, TLS_USER_CPU, TLS_NIC } DpTls;
/* How @path moves the bytes and where its crypto runs (one row of datapath.c's table; a path out
 * of range is a programming error: g_return_val_if_fail, MOVE_SENDFILE / TLS_NONE). */
DpMove datapath_move(DataPath path);
DpTls datapath_tls(DataPath path);
/* The path of a (move, crypto) pair; DP_COUNT for sendfile with user-space crypto (user space
 * never sees sendfile's bytes). */
DataPath datapath_of(DpMove move, DpTls tls);
APP_ENUM_DECLARE(datapath);
/* The data paths and "none" (= DP_COUNT): the values of workload.alt_path. */
APP_ENUM_DECLARE(datapath_alt);

/* sendfile: asynchronous, or synchronous (a worker blocks on each disk read). */
#define SENDFILE_MODE_MAP(X) X(SENDFILE_ASYNC, "async") X(SENDFILE_SYNC, "sync")
typedef enum { SENDFILE_MODE_MAP(APP_ENUM_ID) SENDFILE_MODE_COUNT } SendfileMode;
APP_ENUM_DECLARE(sendfile_mode);

/* Who does a touch. */
typedef enum { AG_DISK, AG_NIC, AG_INGRESS_NIC, AG_CPU_CRYPTO, AG_CPU_STACK } TouchAgent;
/* Which buffer (and so which node) is touched. */
typedef enum { BUF_PAGECACHE, BUF_SOCKBUF, BUF_USER, BUF_META } TouchBuf;
/* How the CPU experiences the read: bulk stream (prefetched) or metadata (pointer chasing). */
typedef enum { ST_NONE, ST_BULK, ST_META } TouchStall;

typedef struct {
  TouchAgent agent;
  TouchBuf buf;
  bool write;
  double bytes; /* per payload byte */
  TouchStall stall;
  const char *what; /* label for reports/tests */
} Touch;

/* Most memory touches one data path lists (array size; the longest path has fewer). */
#define DP_MAX_TOUCHES 16

/* Fills `out` with the touches of `path` for a crypto implementation that uses ordinary
 * stores or not; user_miss the share of a user buffer's touches that miss the cache (1: none
 * resident); meta_bytes each way and ack_bytes per payload byte. Returns the count. */
int datapath_touches(DataPath path, gboolean ordinary_stores, double user_miss, double meta_bytes, double ack_bytes,
                     Touch out[DP_MAX_TOUCHES]);
/* Bulk DRAM touches per payload byte (no metadata, no buffer resident): read_write 8,
 * read_write_ktls 10, sendfile 2, sendfile_sw_ktls 4 (+1 RFO), sendfile_nic_ktls 2,
 * read_write_nic_ktls 8 (the record copy), read_write_plain 6. */
double datapath_bulk_touches(DataPath path, gboolean ordinary_stores);
/* Copies between buffers per payload byte: read_write_ktls and read_write_nic_ktls 3 (the
 * server's record copy), read_write and read_write_plain 2, sendfile paths 0. */
int datapath_copies(DataPath path);
/* Does the CPU run bulk crypto on this path? the NIC? */
gboolean datapath_cpu_crypto(DataPath path);
gboolean datapath_nic_crypto(DataPath path);
/* Name of a data path ("sendfile_nic_ktls"); "?" out of range. */
const char *datapath_name(DataPath p);

/* NUMA placement policies (euro2019_numa, euro2021, nab2022; appliance.h). */
#define PLACEMENT_MAP(X)                   \
  X(PL_NONE, "none")                       \
  X(PL_NETWORK_CENTRIC, "network_centric") \
  X(PL_DISK_CENTRIC, "disk_centric")       \
  X(PL_STRICT_DISK_CENTRIC, "strict_disk_centric")
typedef enum { PLACEMENT_MAP(APP_ENUM_ID) PL_COUNT } Placement;
APP_ENUM_DECLARE(placement);

/* Egress port choice (software.egress). */
#define EGRESS_MAP(X) X(EG_LACP, "lacp") X(EG_BY_CONTENT, "by_content")
typedef enum { EGRESS_MAP(APP_ENUM_ID) EG_COUNT } Egress;
APP_ENUM_DECLARE(egress);

/* Whether the egress port is chosen by content: software.egress by_content, or implied by
 * strict_disk_centric. */
gboolean datapath_egress_by_content(Egress egress, Placement placement);
typedef struct Appliance Appliance;
/* Share of appliance a's load (so of its connections) on data paths for which pred holds: the
 * main path's 1 - workload.alt_fraction plus the alt path's alt_fraction, each where pred holds. */
double datapath_appliance_share(const Appliance *a, gboolean (*pred)(DataPath));

#endif /* MODELS_APPLIANCE_DATAPATH_H */
