/* pcie.h — one PCIe device link: bandwidth, posted writes vs non-posted reads, tags.
 *
 * What it models: the per-direction payload bandwidth of a link,
 *     B = GT/s * lanes / 8 * encoding * MPS / (MPS + TLP_overhead)        [GB/s]
 * with encoding 8b/10b for Gen1-2 and 128b/130b for Gen3+ and a TLP overhead of 24 bytes
 * (header, sequence number, LCRC, framing; Neugebauer et al., "Understanding PCIe
 * performance for end host networking", SIGCOMM 2018). Posted writes (a drive DMA-ing into
 * host memory) are limited only by B. Non-posted reads (a NIC DMA-ing payload out of host
 * memory) are also limited by the requester's outstanding tags, by Little's law:
 *     R_max = tags * MRRS / completion_latency
 * with 32 tags for 5-bit tags, 256 for 8-bit extended tags, 768 for 10-bit tags (euro2021;
 * PCIe 4.0 base spec). In the demand model that ceiling is a resource whose capacity is the
 * tag count and whose demand per byte is the time a byte holds a tag: latency / MRRS.
 * Relaxed ordering is recorded per link; the send path loads devices with posted writes only
 * from the drives (no ordering dependence between them) and with non-posted reads from the
 * NICs, so RO has no effect in this model (it matters for inbound NIC receive DMA, which the
 * model carries only as ACKs).
 * Leaves out: DLLP/flow-control traffic, replay, read-completion boundary splitting, RO.
 */
#ifndef MODELS_PCIE_H
#define MODELS_PCIE_H
#include "sim/conf.h"
#include <glib.h>
#include <stdbool.h>

typedef struct {
  int gen;           /* 1..5 */
  int lanes;         /* 1..16 */
  int tag_bits;      /* 5, 8 or 10 */
  double mrrs_bytes; /* max read request size */
  double mps_bytes;  /* max payload size */
  bool relaxed_ordering;
} PcieLink;

/* Payload bandwidth per direction, GB/s (1e9 B/s). */
double pcie_link_GBps(const PcieLink *l);
/* Outstanding non-posted requests: 32, 256 or 768; 0 on a bad tag width. */
int pcie_tags(int tag_bits);
/* Little's-law ceiling of non-posted reads, GB/s: tags * mrrs / latency_ns. */
double pcie_read_ceiling_GBps(int tags, double mrrs_bytes, double latency_ns);
/* Validate; keypath names the link in error messages. */
gboolean pcie_validate(const PcieLink *l, const char *keypath, GError **error);

/* Keys of a device's `pcie:` map (offsets into PcieLink). */
extern const SimConfField pcie_schema[];

#endif /* MODELS_PCIE_H */
