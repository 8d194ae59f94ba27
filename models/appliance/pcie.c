/* pcie.c — PCIe link bandwidth and the tag-limited read ceiling (see pcie.h). */
#include "models/appliance/pcie.h"
#include "models/appliance/model_error.h"

/* TLP overhead per packet in bytes: 4 B sequence+LCRC framing, 16 B header (64-bit
 * addressing), 2+2 B framing/ECRC-free Gen3 framing tokens (Neugebauer et al. 2018, Tab. 1). */
#define PCIE_TLP_OVERHEAD_BYTES 24.0
/* Line encoding: 8b/10b on Gen 1-2, 128b/130b from Gen 3 (PCI-SIG base specs 1.0-5.0). */
#define PCIE_ENC_GEN12  (8.0 / 10.0)
#define PCIE_ENC_GEN3UP (128.0 / 130.0)
#define PCIE_MAX_GEN    5
/* Outstanding non-posted requests per tag width: 5-bit 32, 8-bit (extended tag) 256, 10-bit
 * 768 (the 256 values with the two upper bits 0 stay unused) (PCIe base spec 4.0, the Transaction ID tag field). */
#define PCIE_TAGS_5BIT  32
#define PCIE_TAGS_8BIT  256
#define PCIE_TAGS_10BIT 768
/* MRRS and MPS range: 128 to 4096 bytes (PCIe base spec, Device Control register encodings). */
#define PCIE_MIN_PAYLOAD_BYTES 128
#define PCIE_MAX_PAYLOAD_BYTES 4096
/* Most PCIe functions one modelled link serves (a validation limit: dual-port cards expose 2;
 * assumed headroom). */
#define PCIE_MAX_FUNCTIONS 4

/* Raw GT/s per lane of a generation; 0 if unknown. */
static double pcie_gtps(int gen)
{
  static const double gt[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0 }; /* PCI-SIG base specs 1.0-5.0 */
  return (gen >= 1 && gen <= PCIE_MAX_GEN) ? gt[gen] : 0.0;
}

void pcie_scale_read_rtt(PcieLink *l, double f)
{
  l->read_rtt_ns = CLAMP(l->read_rtt_ns * f, l->read_rtt_lo_ns, l->read_rtt_hi_ns);
}

double pcie_link_GBps(const PcieLink *l)
{
  double enc = l->gen <= 2 ? PCIE_ENC_GEN12 : PCIE_ENC_GEN3UP;
  double tlp = l->mps_bytes / (l->mps_bytes + PCIE_TLP_OVERHEAD_BYTES);
  return pcie_gtps(l->gen) * l->lanes / 8.0 * enc * tlp;
}

int pcie_tags(int tag_bits)
{
  switch (tag_bits) {
    case 5: return PCIE_TAGS_5BIT;
    case 8: return PCIE_TAGS_8BIT;
    case 10: return PCIE_TAGS_10BIT;
    default: return 0;
  }
}

double pcie_read_ceiling_GBps(int tags, double mrrs_bytes, double latency_ns)
{
  g_return_val_if_fail(latency_ns > 0, 0.0);
  return tags * mrrs_bytes / latency_ns; /* bytes per ns == GB/s */
}

double pcie_function_read_GBps(const PcieLink *l, double dram_ns, double burst_bytes, double record_bytes)
{
  g_return_val_if_fail(burst_bytes > 0 && l->mrrs_bytes > 0, 0.0);
  double per_byte = 1.0 / l->mrrs_bytes + l->wqe_reads / burst_bytes + (record_bytes > 0 ? l->ctx_reads / record_bytes : 0.0);
  return pcie_tags(l->tag_bits) / ((l->read_rtt_ns + dram_ns) * per_byte); /* bytes per ns == GB/s */
}

gboolean pcie_validate(const PcieLink *l, const char *keypath, GError **error)
{
  if (pcie_gtps(l->gen) == 0) return model_fail(error, keypath, "PCIe gen must be 1..5, got %d", l->gen);
  if (l->lanes != 1 && l->lanes != 2 && l->lanes != 4 && l->lanes != 8 && l->lanes != 16)
    return model_fail(error, keypath, "PCIe lanes must be x1, x2, x4, x8 or x16, got x%d", l->lanes);
  if (pcie_tags(l->tag_bits) == 0) return model_fail(error, keypath, "tag_bits must be 5, 8 or 10, got %d", l->tag_bits);
  if (l->mrrs_bytes < PCIE_MIN_PAYLOAD_BYTES || l->mrrs_bytes > PCIE_MAX_PAYLOAD_BYTES || l->mps_bytes < PCIE_MIN_PAYLOAD_BYTES ||
      l->mps_bytes > PCIE_MAX_PAYLOAD_BYTES)
    return model_fail(error, keypath, "MRRS/MPS must be 128..4096 bytes");
  if (!(l->read_rtt_lo_ns <= l->read_rtt_ns && l->read_rtt_ns <= l->read_rtt_hi_ns))
    return model_fail(error, keypath, "read_rtt %g ns must lie in its range read_rtt_lo..read_rtt_hi (%g..%g ns)", l->read_rtt_ns,
                      l->read_rtt_lo_ns, l->read_rtt_hi_ns);
  if (l->functions < 1 || l->functions > PCIE_MAX_FUNCTIONS)
    return model_fail(error, keypath, "functions must be 1..%d, got %d", PCIE_MAX_FUNCTIONS, l->functions);
  return TRUE;
}

#define F(m) offsetof(PcieLink, m)

const SimConfField pcie_schema[] = {
  { .key = "gen",
    .type = SIM_CONF_T_INT,
    .offset = F(gen),
    .def = "3",
    .min = "1",
    .max = "5",
    .doc = "PCIe generation (drive/NIC datasheet)" },
  { .key = "lanes",
    .type = SIM_CONF_T_INT,
    .offset = F(lanes),
    .def = "4",
    .min = "1",
    .max = "16",
    .doc = "link width (x1..x16)" },
  { .key = "tag_bits",
    .type = SIM_CONF_T_INT,
    .offset = F(tag_bits),
    .def = "8",
    .min = "5",
    .max = "10",
    .doc = "tag field: 5 (32 outstanding reads), 8 extended (256), 10 (768); default 8: extended tags enabled (euro2021)" },
  { .key = "mrrs",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(mrrs_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "512 B",
    .min = "128",
    .max = "4096",
    .doc = "max read request size (512 B: common OS default)" },
  { .key = "mps",
    .type = SIM_CONF_T_DOUBLE,
    .whole = true,
    .offset = F(mps_bytes),
    .unit = SIM_UNIT_SIZE,
    .def = "256 B",
    .min = "128",
    .max = "4096",
    .doc = "max payload size (256 B: common root-complex limit)" },
  { .key = "relaxed_ordering",
    .type = SIM_CONF_T_BOOL,
    .offset = F(relaxed_ordering),
    .def = "true",
    .doc = "relaxed ordering enabled (recorded, not modelled: no sourced throughput effect)" },
  { .key = "functions",
    .type = SIM_CONF_T_INT,
    .offset = F(functions),
    .def = "1",
    .min = "1",
    .max = "4",
    .doc = "requester functions, each with its own tag space (a dual-port ConnectX exposes one per port)" },
  { .key = "read_rtt",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(read_rtt_ns),
    .unit = SIM_UNIT_TIME,
    .def = "600 ns",
    .min = "0",
    .doc =
        "non-posted read round trip excluding DRAM (600 ns: pcie-bench, Xeon E5, Neugebauer et al. 2018 Fig. 4; assumed elsewhere, in read_rtt_lo..hi)" },
  { .key = "read_rtt_lo",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(read_rtt_lo_ns),
    .unit = SIM_UNIT_TIME,
    .def = "400 ns",
    .min = "0",
    .doc = "low end of read_rtt's plausible range (400 ns: assumed, a root complex faster than pcie-bench's Xeon E5; "
           "500 ns where pcie-bench measured)" },
  { .key = "read_rtt_hi",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(read_rtt_hi_ns),
    .unit = SIM_UNIT_TIME,
    .def = "1500 ns",
    .min = "0",
    .doc = "high end of read_rtt's plausible range (1500 ns: assumed, Arm server root complexes reported slower, "
           "no figure found; 600 ns where pcie-bench measured)" },
  { .key = "wqe_reads",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(wqe_reads),
    .def = "1",
    .min = "0",
    .doc = "non-payload read requests per TSO burst: send WQE and descriptor fetches (assumed 1)" },
  { .key = "ctx_reads",
    .type = SIM_CONF_T_DOUBLE,
    .offset = F(ctx_reads),
    .def = "0",
    .min = "0",
    .doc =
        "non-payload read requests per TLS record for an inline TLS engine's context, beside its cache misses' fetches (nic.h) (assumed 0)" },
  SIM_CONF_END
};
