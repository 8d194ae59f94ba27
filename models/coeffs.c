/* coeffs.c — values of the shared coefficients (see coeffs.h). The fitted ones come from the
 * data file models/coeffs.def, which `ocasim fit --write` writes (coeffs_write_def() below);
 * the fixed ones and the fit's starting point are set here with their sources. */
#include "models/coeffs.h"
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
#include "models/coeffs.def"
#undef COEF
};
G_STATIC_ASSERT(G_N_ELEMENTS(FITTED) == COEFFS_N_FITTED);

/* The first lines of models/coeffs.def, as coeffs_write_def() writes them. */
static const char DEF_HEADER[] =
    "/* models/coeffs.def — the fitted shared coefficients (models/coeffs.h): the output of the fit,\n"
    " * written by `ocasim fit --write models/coeffs.def` (make fit) and read by models/coeffs.c.\n"
    " * Not edited by hand: a refit rewrites the values (as ocasim fit rounds them, each the shortest\n"
    " * text that reads back as the same double); names, order and notes are those of the build that\n"
    " * wrote it. COEF(name, value, note): a fitted member of Coeffs, in the fit's order. */\n";

void coeffs_defaults(Coeffs *c)
{
  /* Fitted: the values of models/coeffs.def, the last `make fit` over every published result
   * (+ the quoted STREAM figures), starting from coeffs_prior(). */
  for (int i = 0; i < COEFFS_N_FITTED; i++) *coeffs_fitted_ptr(c, i) = FITTED[i].value;
  /* Fixed. */
  /* Bandwidth lost to read/write turnarounds, sized from a measured mixed-traffic figure: Intel
   * MLC v3.5 --peak_injection_bandwidth on a 2-socket Xeon Scalable DDR4 server (CNCF CNF
   * testbed, github.com/cncf/cnf-testbed issue 129, 2018): all reads 181.2 GB/s, 3:1
   * reads-writes 172.5, 2:1 172.2, 1:1 174.1, i.e. 0.952, 0.950 and 0.961 of all reads. The
   * least-squares t of eff(w) = 1 - t 4 w (1 - w) over the three mixes (w = 1/4, 1/3, 1/2) is
   * 0.051, each mix within 1.2 % (reading MLC's writes as regular stores whose ownership reads
   * count as reads, w = 1/5, 1/4, 1/3, gives 0.058). No DDR5 figure was found. */
  c->dram_turnaround = 0.051;
  /* Metadata: euro2019_ktls measured about 5 GB/s each way at 100 Gb/s (0.4 B/B) on a box with
   * MTU 1500 (MSS 1448 B) and LRO merging 8 ACKs. meta_conn_bytes: 8 cache lines of connection
   * state (tcpcb, inpcb, socket) per ACK event (assumed); meta_pkt_bytes is the rest of the
   * measured 0.4 B/B per MSS packet: (0.4 - 512 / (2 x 1448 x 8)) x 1448 = 547.2 B (derived). */
  c->meta_conn_bytes = 512;
  c->meta_pkt_bytes = (0.4 - 512.0 / (2.0 * 1448.0 * 8.0)) * 1448.0;
  c->pkt_cycles = 2000; /* about 1 us per packet through the FreeBSD send path at 2 GHz
                            (Rizzo, "netmap", USENIX ATC 2012, Sec. 2) */
  c->ack_cycles = 1000; /* receive of a pure ACK, about half a send (same source) */
  c->irq_cycles = 2000; /* an interrupt with its handler and softirq/taskqueue wake-up, of the order of
                            the per-packet cost above (same source, Sec. 2: interrupt and per-packet
                            costs of the same order); no reference row runs without moderation,
                            so no fit can identify it */
  c->pcie_rtt_ns = 600; /* DMA read round trip excl. DRAM, 500-600 ns measured by
                                 pcie-bench (Neugebauer et al., SIGCOMM 2018, Fig. 4) */
}

void coeffs_prior(Coeffs *c)
{
  coeffs_defaults(c);
  c->dram_eff = 0.94;           /* STREAM on DDR4 servers reaches 85-90 % of peak at a 2:1 mix */
  c->port_eff = 0.94;           /* 1448 B TCP payload per 1538 B on the wire at MTU 1500 */
  c->fabric_eff = 0.90;         /* flit/header overhead of coherent links, order of PCIe's TLPs */
  c->page_cycles = 1600;        /* ~0.6 us per 4 KiB page of VM + sendfile + TCP work at 2.5 GHz */
  c->mapped_page_cycles = 1600; /* sf_buf mapping + mbuf per page: of the same order (assumption) */
  c->k_bulk = 0.15;             /* streaming reads are mostly prefetched: ~15 % of a miss exposed */
  c->k_meta = 0.30;             /* dependent metadata loads: a larger part exposed */
  c->copy_cpb = 1.0;            /* rep movsb copy of cold data, ~1 cycle/byte */
  c->k_remote = 1.0;            /* the fabric penalty fully exposed */
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

gboolean coeffs_write_def(const Coeffs *c, GString *out, GError **error)
{
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
  return TRUE;
}
