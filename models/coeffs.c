/* coeffs.c — default values of the shared coefficients (see coeffs.h). */
#include "models/coeffs.h"
#include <glib.h>

void coeffs_defaults(Coeffs *c)
{
  /* Fitted: initial estimates, replaced by `make fit` output (see below). */
  c->dram_eff = 0.94;
  c->port_eff = 0.94;
  c->fabric_eff = 0.90;
  c->page_cycles = 1600;
  c->mapped_page_cycles = 1600;
  c->k_bulk = 0.15;
  c->k_meta = 0.30;
  c->copy_cpb = 1.0;
  c->k_remote = 1.0;
  /* Fixed. */
  c->dram_turnaround = 0.10;  /* ~10% of DDR4 bus time lost to write-to-read turnarounds (tWTR,
                                 tRTW) at a 1:1 mix; JEDEC DDR4 timings at 3200 MT/s */
  c->meta_bytes = 0.4;        /* euro2019_ktls: about 5 GB/s each way at 100 Gb/s = 0.4 B/B */
  c->pkt_cycles = 2000;       /* about 1 us per packet through the FreeBSD send path at 2 GHz
                                 (Rizzo, "netmap", USENIX ATC 2012, Sec. 2) */
  c->ack_cycles = 1000;       /* receive of a pure ACK, about half a send (same source) */
  c->pcie_rtt_ns = 600;       /* DMA read round trip excl. DRAM, 500-600 ns measured by
                                 pcie-bench (Neugebauer et al., SIGCOMM 2018, Fig. 4) */
}

static const char *NAMES[COEFFS_N_FITTED] = {"dram_eff", "port_eff", "fabric_eff", "page_cycles",
                                             "mapped_page_cycles", "k_bulk", "k_meta", "copy_cpb", "k_remote"};

const char *coeffs_fitted_name(int i)
{
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, NULL);
  return NAMES[i];
}

double *coeffs_fitted_ptr(Coeffs *c, int i)
{
  double *p[COEFFS_N_FITTED] = {&c->dram_eff, &c->port_eff, &c->fabric_eff, &c->page_cycles,
                                &c->mapped_page_cycles, &c->k_bulk, &c->k_meta, &c->copy_cpb, &c->k_remote};
  g_return_val_if_fail(i >= 0 && i < COEFFS_N_FITTED, NULL);
  return p[i];
}
