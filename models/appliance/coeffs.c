/* coeffs.c — values of the shared coefficients (see coeffs.h). The fitted ones come from the
 * data file models/appliance/coeffs.def, which `ocasim fit --write` writes (coeffs_write_def() below);
 * the fixed ones and the fit's starting point are set here with their sources. */
#include "models/appliance/coeffs.h"
#include <glib.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* The fitted coefficients, in the fit's order, from the data file. */
typedef struct {
  const char *name;
  size_t offset; /* of the member in Coeffs */
  double value;  /* the default: the last fit's value */
  const char *note;
} FittedCoeff;

static const FittedCoeff FITTED[] = {
#define COEF(name, value, note) { #name, offsetof(Coeffs, name), value, note },
#define COEF_COV(a, b, value)
#define COEF_TAU(name, value)
#define COEF_SIGMA(name, value)
#include "models/appliance/coeffs.def"
#undef COEF
#undef COEF_COV
#undef COEF_TAU
#undef COEF_SIGMA
};

/* The fit's covariance entries and the transfer spread, as the data file gives them. */
typedef struct {
  const char *a, *b;
  double value;
} CovEntry;

static const CovEntry COV[] = {
#define COEF(name, value, note)
#define COEF_COV(a, b, value) { #a, #b, value },
#define COEF_TAU(name, value)
#define COEF_SIGMA(name, value)
#include "models/appliance/coeffs.def"
#undef COEF
#undef COEF_COV
#undef COEF_TAU
#undef COEF_SIGMA
  { NULL, NULL, 0 } /* the file may hold none */
};

static const double SIGMA[] = {
#define COEF(name, value, note)
#define COEF_COV(a, b, value)
#define COEF_TAU(name, value)
#define COEF_SIGMA(name, value) value,
#include "models/appliance/coeffs.def"
#undef COEF
#undef COEF_COV
#undef COEF_TAU
#undef COEF_SIGMA
  0.0 /* the file may hold none */
};

static const double TAU[] = {
#define COEF(name, value, note)
#define COEF_COV(a, b, value)
#define COEF_TAU(name, value) value,
#define COEF_SIGMA(name, value)
#include "models/appliance/coeffs.def"
#undef COEF
#undef COEF_COV
#undef COEF_TAU
#undef COEF_SIGMA
  0.0 /* the file may hold none */
};
G_STATIC_ASSERT(G_N_ELEMENTS(FITTED) == COEFFS_N_FITTED);

/* The fixed coefficients, with the short form of the source that coeffs_defaults() cites. */
typedef struct {
  const char *name;
  size_t offset;
  const char *source;
  double lo, hi; /* the plausible range, in the coefficient's unit: the source's own spread, or for an
                    assumed value the stated range (coeffs_fixed_range) */
} FixedCoeff;

static const FixedCoeff FIXED[] = {
  { "fabric_eff", offsetof(Coeffs, fabric_eff),
    "assumed (flit overhead of the order of PCIe's TLPs; no measured xGMI/UPI DMA figure found)", 0.80, 0.95 },
  { "mapped_page_cycles", offsetof(Coeffs, mapped_page_cycles),
    "FreeBSD r349529: unmapped mbufs save 5-10 % CPU (derived per 4 KiB page)", 670, 1340 },
  { "dram_turnaround", offsetof(Coeffs, dram_turnaround),
    "Intel MLC mixed read/write bandwidth: the median of seven 2S DDR4 Xeon servers (coeffs.c)", 0.051, 0.177 },
  { "dram_turnaround_ddr5", offsetof(Coeffs, dram_turnaround_ddr5),
    "Intel MLC v3.11b mixed read/write bandwidth on 2x Xeon 6980P, DDR5 (ik_llama.cpp discussion 201)", 0.12, 0.21 },
  { "meta_pkt_bytes", offsetof(Coeffs, meta_pkt_bytes), "euro2019_ktls: 0.4 B/B metadata at MTU 1500 (derived)", 270, 820 },
  { "meta_conn_bytes", offsetof(Coeffs, meta_conn_bytes), "assumed (8 cache lines of connection state per ACK)", 256, 1024 },
  { "pkt_cycles", offsetof(Coeffs, pkt_cycles),
    "netmap (Rizzo, USENIX ATC 2012): FreeBSD netsend 1.05 Mpps per core on an i7-870 at 2.93 GHz (derived)", 1400, 4200 },
  { "ack_cycles", offsetof(Coeffs, ack_cycles), "assumed (about half a send; no source measures it)", 500, 2000 },
  { "irq_cycles", offsetof(Coeffs, irq_cycles), "assumed (of the order of a send; no source measures it)", 1000, 4000 },
};

/* every member of Coeffs is either fitted or fixed (all doubles) */
G_STATIC_ASSERT(G_N_ELEMENTS(FIXED) + COEFFS_N_FITTED == sizeof(Coeffs) / sizeof(double));

int coeffs_fixed_count(void)
{
  return (int)G_N_ELEMENTS(FIXED);
}

const char *coeffs_fixed_name(int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)G_N_ELEMENTS(FIXED), NULL);
  return FIXED[i].name;
}

const char *coeffs_fixed_source(int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)G_N_ELEMENTS(FIXED), NULL);
  return FIXED[i].source;
}

void coeffs_fixed_range(int i, double *lo, double *hi)
{
  g_return_if_fail(i >= 0 && i < (int)G_N_ELEMENTS(FIXED));
  *lo = FIXED[i].lo;
  *hi = FIXED[i].hi;
}

double coeffs_fixed_value(const Coeffs *c, int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)G_N_ELEMENTS(FIXED), 0.0);
  return *(const double *)((const char *)c + FIXED[i].offset);
}

void coeffs_fixed_set(Coeffs *c, int i, double v)
{
  g_return_if_fail(i >= 0 && i < (int)G_N_ELEMENTS(FIXED));
  *(double *)((char *)c + FIXED[i].offset) = v;
}

/* The first lines of models/appliance/coeffs.def, as coeffs_write_def() writes them. */
static const char DEF_HEADER[] =
    "/* models/appliance/coeffs.def — the fitted shared coefficients (models/appliance/coeffs.h): the output of the fit,\n"
    " * written by `ocasim fit --write models/appliance/coeffs.def` (make fit) and read by models/appliance/coeffs.c.\n"
    " * Not edited by hand: a refit rewrites the values (as ocasim fit rounds them, each the shortest\n"
    " * text that reads back as the same double); names, order and notes are those of the build that\n"
    " * wrote it. COEF(name, value, note): a fitted member of Coeffs, in the fit's order.\n"
    " * COEF_COV(a, b, value): the fit's covariance of coefficients a and b in fit space (ln, or logit of an\n"
    " * efficiency); COEF_TAU(cpu_costs, value): the platform-transfer spread of the stack costs;\n"
    " * COEF_SIGMA(throughput, value): the model's residual error on throughput, ln (coeffs.h). */\n";

void coeffs_defaults(Coeffs *c)
{
  /* Fitted: the values of models/appliance/coeffs.def, the last `make fit` over every published result
   * (+ the quoted STREAM figures), starting from coeffs_prior(). */
  for (int i = 0; i < COEFFS_N_FITTED; i++) *coeffs_fitted_ptr(c, i) = FITTED[i].value;
  /* Fixed. */
  /* fabric_eff: no source gives the payload share of a raw xGMI or UPI bit, and the reference
   * set cannot identify it (fitted, it moved from 0.90 to 0.93 +- 0.12 on the two Skylake rows
   * alone, below the identifiability report's threshold). Assumed 0.90: the header/CRC share
   * of a coherent link's flits, of the order of PCIe's TLP overhead on a 256-B payload
   * (256 / (256 + 24) = 0.91: 12-16 B header, 2 B sequence, 4 B LCRC, framing). Range 0.80-0.95.
   * Looked for and not found: a measured cross-socket DMA or remote-bandwidth figure of xGMI
   * (Lenovo LP1852, "Configuring AMD xGMI Links on the ThinkSystem SR665 V3", 2023, compares 3 and
   * 4 links on Genoa but quotes theoretical link bandwidth, 384 vs 512 GB/s, and measures with
   * AMD's NDA-only XIO tool); so fabric_eff stays assumed, and so does each link's per-type
   * efficiency (topology.links[].eff_dev_write etc., 1). */
  c->fabric_eff = 0.90;
  /* mapped_page_cycles: only the 2016 Broadwell box runs mapped mbufs, so only its rows could
   * fit it (the identifiability report flagged it "one platform"). Fixed from a measurement
   * instead: unmapped mbufs give "a 5-10% CPU savings on heavy web serving workloads when used
   * by sendfile" (FreeBSD r349529 / D20616, Gallatin and Baldwin, Netflix, 2019). On the
   * mapped-mbuf Broadwell box serving software kTLS with sendfile (bdw2016_sw_ktls: 90 Gb/s at
   * 68 % of 16 cores x 2.6 GHz x SMT yield 1.30) the whole cost is
   * 0.68 x 54.08e9 / 11.25e9 = 3.27 cycles/byte, so the mid-range 7.5 % saving is
   * 0.245 cycles/byte = 1004 cycles per 4 KiB page (670-1340 over 5-10 %; derived). */
  c->mapped_page_cycles = 1000;
  /* Bandwidth lost to read/write turnarounds at a 1:1 mix, sized from measured mixed traffic: Intel
   * MLC --peak_injection_bandwidth gives all reads and the 3:1, 2:1 and 1:1 reads-writes mixes; t
   * is the least-squares fit of eff(w) = 1 - t 4 w (1 - w) over the three (w = 1/4, 1/3, 1/2) as
   * fractions of all reads (memory.h). Seven 2-socket DDR4 Xeon servers, t each:
   *   CNCF CNF testbed, Xeon Scalable (github.com/cncf/cnf-testbed issue 129, 2018; MLC v3.5):  0.051
   *   2x Xeon Gold 6240, Cascade Lake (KU Leuven Genius; MLC v3.10)                              0.105
   *   2x Xeon Gold 6140, Skylake-SP (KU Leuven Genius; MLC v3.10)                                0.112
   *   2x Xeon E5-2680 v3, Haswell-EP (KU Leuven ThinKing; MLC v3.1a)                             0.140
   *   2x Xeon Platinum 8360Y, Ice Lake-SP (KU Leuven wICE; MLC v3.10)                            0.166
   *   2x Xeon E5-2680 v4, Broadwell-EP (KU Leuven BrENIAC; MLC v3.1a)                            0.168
   *   2x Xeon Gold 6132, Skylake-SP (KU Leuven BrENIAC; MLC v3.5)                                0.177
   * (KU Leuven: github.com/hpcleuven/VscDocumentation, source/leuven/tier2_hardware/icelake_mlc.txt
   * and source/leuven/old_hardware/{genius,thinking,breniac}/ *_mlc.txt; the figures are in
   * tests/test_fabric.c, test_turnaround_sources.)
   * The generation's coefficient is their median, 0.140: the fallback for a platform without its
   * own measured figure (memory.rw_turnaround). It was 0.051, the CNF testbed's alone, the lowest
   * of the seven. */
  c->dram_turnaround = 0.140;
  /* DDR5: one measured server, 2x Xeon 6980P (Granite Rapids-AP, 12 DDR5 channels per socket),
   * sub-NUMA clustering off, MLC v3.11b: all reads 1108235.0 MB/s, 3:1 972151.5, 2:1 940099.8,
   * 1:1 928269.2 (github.com/ikawrakow/ik_llama.cpp discussion 201, "What is the NUMA situation?",
   * 2025-03-25): t = 0.165 by the same fit. One server, so the figure is a measurement, not a
   * generation's spread; within the DDR4 servers' range. */
  c->dram_turnaround_ddr5 = 0.165;
  /* Metadata: euro2019_ktls measured about 5 GB/s each way at 100 Gb/s (0.4 B/B) on a box with
   * MTU 1500 (MSS 1448 B) and LRO merging 8 ACKs. meta_conn_bytes: 8 cache lines of connection
   * state (tcpcb, inpcb, socket) per ACK event (assumed); meta_pkt_bytes is the rest of the
   * measured 0.4 B/B per MSS packet: (0.4 - 512 / (2 x 1448 x 8)) x 1448 = 547.2 B (derived). */
  c->meta_conn_bytes = 512;
  c->meta_pkt_bytes = (0.4 - 512.0 / (2.0 * 1448.0 * 8.0)) * 1448.0;
  /* pkt_cycles: FreeBSD's netsend sends 1.05 Mpps per core through the ordinary send path,
   * sendto() down to the driver, on the paper's machine, an Intel i7-870 at 2.93 GHz (3.2 GHz
   * turbo) (Rizzo, "netmap: a novel framework for fast packet I/O", USENIX ATC 2012, Sec. 2):
   * 952 ns per packet, in the source's own clock 2930 / 1.05 = 2790 cycles (3050 at the turbo
   * clock), so 2800. It was 2000: about 1 us read "at 2 GHz", a clock the paper's machine does
   * not run at. Range 1400-4200 (a factor 1.5 each way around the source's 2790-3050): the measured
   * path is a UDP sendto() with its system call and copy, the modelled one a TCP segment handed
   * on by a kernel that is not the 2012 one on another CPU (the transfer is assumed, not
   * measured). */
  c->pkt_cycles = 2800;
  /* ack_cycles and irq_cycles are assumed: no source at hand measures the cycles of receiving a
   * pure ACK or of one interrupt on FreeBSD (netmap measures the send path only; Cai et al.,
   * "Understanding Host Network Stack Overheads", SIGCOMM 2021, split Linux's CPU by component
   * with TSO/GRO on and off; no per-ACK or per-interrupt cycle figure from it was at hand, and it
   * is Linux).
   * ack_cycles: about half a send (1000; range 500-2000, a factor 2). irq_cycles: of the order
   * of a send (2000, with its handler and taskqueue wake-up; range 1000-4000, a factor 2). No
   * reference row runs without interrupt moderation, so no fit can identify irq_cycles. */
  c->ack_cycles = 1000;
  c->irq_cycles = 2000;
}

void coeffs_prior(Coeffs *c)
{
  coeffs_defaults(c);
  c->dram_eff = 0.94;    /* at all reads, before the read/write mix loss: MLC's all-reads bandwidth is
                            0.80-0.94 of the theoretical peak on the KU Leuven servers above (their
                            DIMM speeds taken as the CPUs' fastest; assumed the top), so 0.94 x (1 -
                            0.140 x 4 x 1/3 x 2/3) = 0.82 at STREAM triad's 2:1 mix */
  c->port_eff = 0.94;    /* 1448 B TCP payload per 1538 B on the wire at MTU 1500 */
  c->page_cycles = 1600; /* ~0.64 us per 4 KiB page of VM + sendfile + TCP work at 2.5 GHz */
  c->k_dram = 0.15;      /* streaming reads are mostly prefetched: ~15 % of a miss exposed. One
                            fraction for streaming and metadata reads: fitted apart, the metadata
                            one was not identified (0.21 +- 0.29 against 0.18 +- 0.03, correlated
                            -0.97 with page_cycles), so the data cannot tell them apart */
  c->copy_cpb = 1.0;     /* rep movsb copy of cold data, ~1 cycle/byte */
  c->k_remote = 1.0;     /* a remote line's whole latency exposed once, no overlap (cpu.h) */
}

const char *coeffs_fitted_name(int i)
{
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, NULL);
  return FITTED[i].name;
}

const char *coeffs_fitted_note(int i)
{
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, NULL);
  return FITTED[i].note;
}

double *coeffs_fitted_ptr(Coeffs *c, int i)
{
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, NULL);
  return (double *)((char *)c + FITTED[i].offset);
}

static int fitted_index(const char *name)
{
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    if (strcmp(FITTED[i].name, name) == 0) return i;
  return -1;
}

void coeffs_scale_stack_costs(Coeffs *c, double f)
{
  c->page_cycles *= f;
  c->copy_cpb *= f;
  c->pkt_cycles *= f;
  c->ack_cycles *= f;
  c->irq_cycles *= f;
  c->mapped_page_cycles *= f;
}

gboolean coeffs_fitted_is_eff(int i)
{
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, FALSE);
  return strcmp(FITTED[i].name, "dram_eff") == 0 || strcmp(FITTED[i].name, "port_eff") == 0;
}

void coeffs_spread_defaults(CoeffsSpread *s)
{
  memset(s, 0, sizeof *s);
  for (size_t k = 0; COV[k].a; k++) {
    int i = fitted_index(COV[k].a), j = fitted_index(COV[k].b);
    if (i < 0 || j < 0) continue; /* a coefficient of another build: the next fit rewrites the file */
    s->cov_x[i][j] = s->cov_x[j][i] = COV[k].value;
  }
  s->tau_cpu_costs = TAU[0];
  s->sigma_gbps = SIGMA[0];
}

static double fitted_value(const Coeffs *c, int i)
{
  return *(const double *)((const char *)c + FITTED[i].offset);
}

/* Appends the shortest %g text of @v (finite) that reads back as the same double, without an
 * exponent when 1e-4 <= |v| < 1e17 (1580, not 1.58e+03). */
static void append_exact(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean plain = fabs(v) >= 1e-4 && fabs(v) < 1e17;
  for (int digits = 1; digits <= 17; digits++) {
    char fmt[8];
    g_snprintf(fmt, sizeof fmt, "%%.%dg", digits);
    g_ascii_formatd(buf, sizeof buf, fmt, v);
    if (g_ascii_strtod(buf, NULL) == v && (!plain || !strchr(buf, 'e'))) break; /* 17 digits always read back */
  }
  g_string_append(out, buf);
}

gboolean coeffs_write_def(const Coeffs *c, const CoeffsSpread *sp, GString *out, GError **error)
{
  if (sp) {
    gboolean finite = isfinite(sp->tau_cpu_costs) && sp->tau_cpu_costs >= 0 && isfinite(sp->sigma_gbps) && sp->sigma_gbps >= 0;
    for (int i = 0; i < COEFFS_N_FITTED; i++)
      for (int j = 0; j < COEFFS_N_FITTED; j++) finite = finite && isfinite(sp->cov_x[i][j]);
    if (!finite) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "the fit's covariance or transfer spread is not finite");
      return FALSE;
    }
  }
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    double v = fitted_value(c, i);
    if (!isfinite(v)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "coefficient %s is %g, not a finite number", FITTED[i].name, v);
      return FALSE;
    }
  }
  g_string_append(out, DEF_HEADER);
  for (int i = 0; i < COEFFS_N_FITTED; i++) {
    g_string_append_printf(out, "COEF(%s, ", FITTED[i].name);
    append_exact(out, fitted_value(c, i));
    g_string_append(out, ", \"");
    for (const char *p = FITTED[i].note; *p; p++) {
      if (*p == '"' || *p == '\\') g_string_append_c(out, '\\');
      g_string_append_c(out, *p);
    }
    g_string_append(out, "\")\n");
  }
  if (!sp) return TRUE;
  for (int i = 0; i < COEFFS_N_FITTED; i++)
    for (int j = i; j < COEFFS_N_FITTED; j++) {
      g_string_append_printf(out, "COEF_COV(%s, %s, ", FITTED[i].name, FITTED[j].name);
      append_exact(out, sp->cov_x[i][j]);
      g_string_append(out, ")\n");
    }
  g_string_append(out, "COEF_TAU(cpu_costs, ");
  append_exact(out, sp->tau_cpu_costs);
  g_string_append(out, ")\nCOEF_SIGMA(throughput, ");
  append_exact(out, sp->sigma_gbps);
  g_string_append(out, ")\n");
  return TRUE;
}
