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
 * Tags belong to a requester function, not to a card: a card exposing F functions (a dual-port
 * ConnectX exposes one physical function per port) has F separate tag spaces, and a port's reads
 * use its function's (nic.c: pcie.nicN.fF.tags). The round trip a tag is held for is the link's
 * read_rtt (root complex + fabric, excluding DRAM; default 600 ns: pcie-bench measured 500-600 ns
 * on Xeon E5, Neugebauer et al. 2018 Fig. 4) plus the DRAM latency
 * at its load. Reads that carry no payload hold tags too: wqe_reads per TSO burst (send WQE and
 * descriptor fetches) and ctx_reads per TLS record (the inline engine's context fetch), each a
 * read request of its own, and the inline engine's fetches of contexts its cache misses (nic.h:
 * m ceil(ctx / MRRS) per burst). Tag-limited read bandwidth of one function, by Little's law:
 *     R_f = tags / ((rtt + L) * (1 / MRRS + wqe_reads / burst + ctx_reads / record))   [B/ns]
 * (pcie_function_read_GBps: the context-cache term is the demand model's, not in this closed form)
 * Relaxed ordering is recorded per link; the send path loads devices with posted writes only
 * from the drives (no ordering dependence between them) and with non-posted reads from the
 * NICs, so RO has no effect in this model (it matters for inbound NIC receive DMA, which the
 * model carries only as ACKs).
 * The round trip is a parameter of each link (pcie.read_rtt), with its plausible range
 * (pcie.read_rtt_lo, pcie.read_rtt_hi): measured only on Xeon E5 (bdw-e5-2697a narrows it to
 * pcie-bench's 500-600 ns); on every other root complex (EPYC, Altra, later Xeons) it is assumed,
 * 600 ns in a wide 400-1500 ns by default (Arm server root complexes are reported slower; no figure
 * was found), until a host's own measurement replaces it.
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
 * prediction intervals, appliance_interval.h, never leaves the range the loader accepts). */
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

#endif /* MODELS_PCIE_H */
