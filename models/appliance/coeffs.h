/* coeffs.h — the few shared coefficients of the appliance model.
 *
 * What it is: every other number in a scenario is a physical quantity of a part (channels,
 * MT/s, lanes, GT/s, cores, GHz, port speed) with its source. These coefficients are shared
 * by ALL scenarios; none is per scenario. The fitted ones are estimated once, jointly over
 * every published result (GSL nonlinear least squares, `make fit`, models/reference/fit.c), and
 * the fit writes them to the data file models/appliance/coeffs.def that coeffs.c includes as the
 * defaults; the fixed ones carry their own source (coeffs.c).
 */
#include <glib.h>

#ifndef MODELS_APPLIANCE_COEFFS_H
#define MODELS_APPLIANCE_COEFFS_H

typedef struct {
  /* fitted (make fit) */
  double dram_eff;    /* DRAM controller efficiency at a pure-read mix (memory.h) */
  double port_eff;    /* TLS payload per line-rate bit of a NIC port (nic.h) */
  double page_cycles; /* stack cycles per payload page (cpu.page_size), unmapped mbufs */
  double k_dram;      /* exposed fraction of a local DRAM miss for a CPU read, streaming or metadata */
  double copy_cpb;    /* cycles per byte of a kernel<->user copy, in-cache part */
  double k_remote;    /* exposed fraction of a remote line's whole latency (local + fabric penalty +
                         DRAM and link queueing) for a CPU read; 1 = the line exposed once (cpu.h) */
  /* fixed, sourced (coeffs.c): no reference row but one platform's, or none, identifies them */
  double fabric_eff;           /* payload per raw bit of a fabric link (topology.h) */
  double mapped_page_cycles;   /* extra cycles per 4 KiB page with mapped mbufs + sf_bufs (cpu.h) */
  double dram_turnaround;      /* bandwidth lost to read/write turnarounds at a 1:1 mix, DDR4 (measured, coeffs.c) */
  double dram_turnaround_ddr5; /* the same on DDR5 (coeffs.c) */
  double meta_pkt_bytes;       /* metadata bytes each way per MSS packet (mbufs, descriptors, headers) */
  double meta_conn_bytes;      /* connection-state bytes each way per ACK event (tcpcb, inpcb, socket) */
  double pkt_cycles;           /* cycles per segment handed to the NIC, through TCP/IP + driver */
  double ack_cycles;           /* cycles per ACK event the stack processes */
  double irq_cycles;           /* cycles per interrupt (entry, handler, exit, softirq/taskqueue wake-up) */
} Coeffs;

/* Number of fitted coefficients (the rows of coeffs.def). */
#define COEFFS_N_FITTED 6

/* Fills the defaults (the fitted values of the last `make fit`, models/appliance/coeffs.def, and the fixed ones). */
void coeffs_defaults(Coeffs *c);
/* Fills the fit's starting point and prior centre: physically motivated first guesses of the
 * fitted coefficients (sources in coeffs.c), fixed ones as in coeffs_defaults. */
void coeffs_prior(Coeffs *c);
/* Name of fitted coefficient i (0..COEFFS_N_FITTED-1, the fit's order), pointer to it. */
const char *coeffs_fitted_name(int i);
double *coeffs_fitted_ptr(Coeffs *c, int i);
/* What fitted coefficient i is (the note of its line in models/appliance/coeffs.def). */
const char *coeffs_fitted_note(int i);
/* The fixed coefficients (not fitted: each from a cited measurement or marked assumed in
 * coeffs.c): how many, the name and the short source of fixed coefficient i
 * (0..coeffs_fixed_count()-1), and its value in @c. */
int coeffs_fixed_count(void);
const char *coeffs_fixed_name(int i);
const char *coeffs_fixed_source(int i);
double coeffs_fixed_value(const Coeffs *c, int i);
/* Sets fixed coefficient i of @c to @v. */
void coeffs_fixed_set(Coeffs *c, int i, double v);
/* The plausible range [*lo, *hi] of fixed coefficient i, in its own unit: the spread its source
 * gives (several measurements, a quoted range) or, for an assumed value, the stated range
 * (coeffs.c). The prediction intervals read it as the central ~95 % of the value's spread. */
void coeffs_fixed_range(int i, double *lo, double *hi);
/* The spread of the shared coefficients that the fit writes beside their values (models/appliance/coeffs.def):
 * the fitted coefficients' covariance in fit space (ln of a positive coefficient, logit of an
 * efficiency, the fit's order: (J^T J)^-1 with every published figure's tolerance read as one
 * standard error, priors included) and the platform-transfer spread of the CPU costs: the standard
 * deviation tau of ln(a platform's factor on the shared stack costs), estimated across the
 * reference platforms (models/reference/fit.h, fit_transfer_tau). */
typedef struct {
  double cov_x[COEFFS_N_FITTED][COEFFS_N_FITTED];
  double tau_cpu_costs;
  double sigma_gbps; /* the model's own residual error: the RMS of ln(model / published) throughput over the fit's
                        distinct results that are not documented deviations (fit_model_sigma) */
} CoeffsSpread;

/* Fills the spread of the last `make fit` (models/appliance/coeffs.def). */
void coeffs_spread_defaults(CoeffsSpread *s);
/* Multiplies the stack costs that the reference platforms' rows fit or cite and every other
 * platform inherits (page_cycles, copy_cpb, pkt_cycles, ack_cycles, irq_cycles,
 * mapped_page_cycles) by @f: the platform-transfer factor of the prediction intervals. */
void coeffs_scale_stack_costs(Coeffs *c, double f);
/* Whether fitted coefficient i is an efficiency in (0, 1), fitted as a logit (else as a ln). */
gboolean coeffs_fitted_is_eff(int i);

/* Appends to @out the coefficients data file (models/appliance/coeffs.def) holding the fitted values of
 * @c: a header comment, then one line COEF(name, value, "note") per fitted coefficient in the
 * fit's order, each value as the shortest %g text that reads back as the same double (so the
 * file round-trips bit for bit: the defaults give back the committed file), then the spread @sp
 * (NULL: none written, all zero when read back): COEF_COV(name_i, name_j, value) for i <= j and
 * COEF_TAU(cpu_costs, value) and COEF_SIGMA(throughput, value). Names and notes are those of this build. Error
 * (G_FILE_ERROR_INVAL): a value that is not finite. */
gboolean coeffs_write_def(const Coeffs *c, const CoeffsSpread *sp, GString *out, GError **error);

#endif /* MODELS_APPLIANCE_COEFFS_H */
