/* datapath.h — how a served byte moves: the DRAM touches of each serving data path.
 *
 * What it models: each path is a list of touches (who touches which buffer, read or write),
 * from the sources' data-flow slides (published.yaml, datapath_dram_touches):
 *   read_write          user-space TLS, 8 touches: disk DMA write; copyout R+W; encrypt R+W;
 *                       copyin R+W; NIC DMA read.
 *   read_write_ktls     read/write with in-kernel software TLS, 8 touches: disk write; copyout
 *                       R+W; copyin R+W; kernel encrypt R+W; NIC read.
 *   sendfile            2 touches: disk DMA write; NIC DMA read.
 *   sendfile_sw_ktls    4 touches: disk write; CPU reads plaintext; CPU writes ciphertext to a
 *                       per-connection buffer; NIC read. +1 read-for-ownership with ordinary
 *                       (not non-temporal) stores.
 *   sendfile_nic_ktls   2 touches; the NIC encrypts inline.
 * On top of the bulk flows every path carries metadata (socket buffers, mbufs, TCP state):
 * meta_bytes per payload byte each way between the stack's CPU and the metadata's node
 * (euro2019_ktls: about 5 GB/s each way at 100 Gb/s, i.e. 0.4 B/B each way), and inbound
 * ACKs DMA'd by the ingress NIC.
 * sendfile is synchronous (a worker blocks on each disk read) or asynchronous.
 * Leaves out: page-cache hits (every served byte is read from a drive; software.page_cache on
 * scales the disk DMA write by the miss ratio, pagecache.h), retransmissions
 * (the NIC re-DMAs whole TLS records), TLS record framing overhead (29 B per 16 KB).
 */
#ifndef MODELS_DATAPATH_H
#define MODELS_DATAPATH_H
#include "models/app_enum.h"
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

/* Serving data paths (software.data_path, workload.alt_path). */
#define DATAPATH_MAP(X)                      \
  X(DP_READ_WRITE, "read_write")             \
  X(DP_READ_WRITE_KTLS, "read_write_ktls")   \
  X(DP_SENDFILE, "sendfile")                 \
  X(DP_SENDFILE_SW_KTLS, "sendfile_sw_ktls") \
  X(DP_SENDFILE_NIC_KTLS, "sendfile_nic_ktls")
typedef enum { DATAPATH_MAP(APP_ENUM_ID) DP_COUNT } DataPath;
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

#define DP_MAX_TOUCHES 16

/* Fills `out` with the touches of `path` for a crypto implementation that uses ordinary
 * stores or not; meta_bytes each way and ack_bytes per payload byte. Returns the count. */
int datapath_touches(DataPath path, gboolean ordinary_stores, double meta_bytes, double ack_bytes, Touch out[DP_MAX_TOUCHES]);
/* Bulk DRAM touches per payload byte (no metadata): 8, 8, 2, 4 (+1 RFO), 2. */
double datapath_bulk_touches(DataPath path, gboolean ordinary_stores);
/* Kernel/user copies per payload byte (read_write paths: 2). */
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

/* Keys of the scenario's `software:` section (component.h: offsets into AppConf). */
extern const SimConfField software_schema[];

#endif /* MODELS_DATAPATH_H */
