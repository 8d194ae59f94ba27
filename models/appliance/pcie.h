/* pcie.h — one PCIe device link: bandwidth, posted writes vs non-posted reads, tags.
 *
 * What it models: the per-direction payload bandwidth of a link (posted writes are limited only by it)
 *     B = GT/s * lanes / 8 * encoding * MPS / (MPS + TLP_overhead)        [GB/s]
 * and, for non-posted reads (a NIC DMA-ing out of host memory), the requester function's tags:
 *     R_f = tags / ((rtt + L) * (1 / MRRS + wqe_reads / burst + ctx_reads / record))   [B/ns]
 * a resource of capacity tags and demand latency / MRRS per byte; one tag space per function.
 * Sources: Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM 2018
 * (TLP overhead 24 B; read_rtt 500-600 ns on Xeon E5, Fig. 4); euro2021 and PCIe 4.0 base spec (tags);
 * read_rtt elsewhere assumed, 600 ns in 400-1500 ns.
 * Leaves out: DLLP/flow-control traffic, replay, read-completion boundary splitting, RO.
 * Evidence and history: docs/model/pcie.md.
 */
#ifndef MODELS_APPLIANCE_PCIE_H
#define MODELS_APPLIANCE_PCIE_H
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
  int functions;                         /* requester functions, each with its own tag space */
  double read_rtt_ns;                    /* non-posted read round trip excluding DRAM */
  double read_rtt_lo_ns, read_rtt_hi_ns; /* its plausible range (measured spread, or the assumed one) */
  double wqe_reads;                      /* non-payload read requests per TSO burst (WQE, descriptors) */
  double ctx_reads;                      /* non-payload read requests per TLS record (inline TLS context) */
} PcieLink;

/* A read_rtt range no wider than this ratio (hi / lo) is a measured spread, not an assumed one:
 * pcie-bench's 500-600 ns is 1.2 (the prediction intervals name the kind). */
#define PCIE_RTT_MEASURED_RATIO 1.25

/* Scales the link's read round trip by @f (> 0), held within read_rtt_lo..read_rtt_hi (a draw of the
 * prediction intervals, modes/interval.h, never leaves the range the loader accepts). */
void pcie_scale_read_rtt(PcieLink *l, double f);
/* Payload bandwidth per direction, GB/s (1e9 B/s). */
double pcie_link_GBps(const PcieLink *l);
/* Outstanding non-posted requests: 32, 256 or 768; 0 on a bad tag width. */
int pcie_tags(int tag_bits);
/* Little's-law ceiling of non-posted reads, GB/s: tags * mrrs / latency_ns. */
double pcie_read_ceiling_GBps(int tags, double mrrs_bytes, double latency_ns);
/* Tag-limited read bandwidth of one requester function, GB/s (pcie.h): tags over the tag-seconds
 * a byte needs, (rtt_ns + dram_ns) * (1 / mrrs + wqe_reads / burst_bytes + ctx_reads /
 * record_bytes); record_bytes 0 (no inline TLS) drops the context term. */
double pcie_function_read_GBps(const PcieLink *l, double dram_ns, double burst_bytes, double record_bytes);
/* Validate; keypath names the link in error messages. */
gboolean pcie_validate(const PcieLink *l, const char *keypath, GError **error);

/* Keys of a device's `pcie:` map (offsets into PcieLink). */
extern const SimConfField pcie_schema[];

#endif /* MODELS_APPLIANCE_PCIE_H */
