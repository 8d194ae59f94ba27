/* validate/pipeline.h — `ocasim validate` end to end: probe, microbenchmarks,
 * mechanics check, measurement runs, fit, predictions of held-out runs.
 */
#ifndef OCASIM_VALIDATE_PIPELINE_H
#define OCASIM_VALIDATE_PIPELINE_H

#include <glib.h>

#include "validate/fit.h"
#include "validate/loadlat.h"
#include "validate/measure.h"
#include "validate/microbench.h"
#include "validate/predict.h"
#include "serve/probe.h"
#include "validate/profile.h"

G_BEGIN_DECLS

/* Response bytes the load generator waits for before the kernel wakes it in the timed runs
 * (SO_RCVLOWAT, capped by what is left of the response; measure.h, loadgen.h).  Without it the
 * client thread sleeps after every drained segment and the sender pays a cross-CPU wake-up for
 * the next one: measured on the 2-vCPU validation VM, plain sendfile s1c1 1 MiB, 8 runs: the
 * server's cycles/B rose with the client's wake-ups per MB as 0.22 + 0.100 x wakes/MB (about
 * 1e5 cycles, ~40 us, per wake-up: a function-call IPI to a halted vCPU of a nested guest),
 * and wake-ups per MB wandered between 2.9 and 10 from run to run (18-43 Gb/s); with 1 MiB they
 * stay near 0.3 per MB (about one per response) and the same runs give 97-102 Gb/s at 0.20
 * cycles/B.  An instrument setting: remote clients do not wake the server's cores.
 * 4 MiB, not 1: the kernel clamps the receive window at the mark when it grows the buffer for it
 * (tcp_set_rcvlowat: window_clamp = mark), so a response larger than the mark went out one
 * window at a time, each sent only after the client drained the last: plain sendfile s1c1 n8
 * 4 MiB with a 1 MiB mark ran at 50 Gb/s with both sides ~71 % busy (0.30 cycles/B each,
 * 338 function-call IPIs per GB, /proc/interrupts CAL), with a 4 MiB mark at 110-114 Gb/s,
 * server 99 % busy at 0.18-0.19 cycles/B, client 96 % at 0.18, 23 IPIs per GB; TLS 1.3
 * AES-256 at 4 MiB (server bound) 15.8 Gb/s either way; responses up to 1 MiB unchanged. */
#define VAL_WAKE_BYTES ((size_t)4 << 20)

/* A run is CPU bound, and so described by the model's bottleneck law, when its busier side
 * kept at least this share of its usable cores busy.  Below it neither side ran out of CPU
 * (latency-bound operation, outside the model, loopback.h) and each side's cycles/B carry the
 * sleeps and wake-ups of a thread that ran dry: plain sendfile s1c1 n8 4 MiB on the 2-vCPU
 * validation VM with the 1 MiB wake mark of before (VAL_WAKE_BYTES), six quick runs: server
 * 63-76 % and client 61-69 % busy, server 0.33-0.42 cycles/B against 0.22 at 1 MiB (98 %
 * busy); every other training run had a side at 97-99 % when no other tenant took its CPU.
 * Such training runs are left out of the fit. */
#define VAL_CPU_BOUND 0.9

/* A repetition with more than this many busy cores of other processes is contended (measure.c
 * replaces a few such; a run whose median stays above it is reported as contended). Assumed:
 * a quarter of a core, small beside the one or two cores a run keeps busy. */
#define VAL_FOREIGN_LIMIT 0.25

/* Busy share of the busier side: max(server_util / S, client_util / C), S and C the cores each
 * side's threads can use (loopback_pool_cores: threads capped by pinned CPUs, what other
 * tenants left of them, and connections). */
double val_busiest_share(const ValHostConfig *cfg, const ValRunSample *median, int cores);

/* Defaults of the measured window, the warm-up before it (s) and the repetitions per
 * configuration, quick and full (assumed: short enough for CI on 2 cores, long enough for a
 * spread); `ocasim validate --help` prints them. */
#define VAL_QUICK_DURATION_S 1.0
#define VAL_FULL_DURATION_S  3.0
#define VAL_QUICK_WARMUP_S   0.3
#define VAL_FULL_WARMUP_S    1.0
#define VAL_QUICK_REPS       3
#define VAL_FULL_REPS        5

typedef struct {
  gboolean quick;              /* short runs and fewer configurations (< 3 min on 2 cores) */
  const char *out_dir;         /* report.md, report.json, host-profile.yaml */
  const char *work_dir;        /* served files (NULL: a temporary directory, removed at the end) */
  double warmup_s, duration_s; /* 0: VAL_QUICK_WARMUP_S/_DURATION_S quick, VAL_FULL_... full */
  int reps;                    /* 0: VAL_QUICK_REPS quick, VAL_FULL_REPS full */
  int max_threads;             /* cap on server/client threads (0: online CPUs) */
  guint32 seed;                /* order of the runs */
  gboolean pin;                /* pin threads as val_placement says (the CLI's default; FALSE: the scheduler
                           * places them and the model estimates how often the two ends share a core) */
  ValVerify verify;            /* checks during timed runs (mechanics pass always checks SHA-256) */
  gboolean progress;           /* one line per step on stderr */
  int nice;                    /* scheduling priority of the runs (setpriority; < 0 needs privileges) */
  gboolean keep_nice;          /* leave the priority alone (nice ignored) */
  int load_threads;            /* loaded-latency probe's bandwidth-loading threads (0: online CPUs - 1, at least 1) */
} ValValidateConfig;

/* One run next to the model's prediction for it. */
typedef struct {
  ValRunResult run;
  ValHostConfig cfg;
  ValHostPrediction pred; /* closed form (validate/predict.c): per-side cycles/B and Gb/s */
  double app_gbps;        /* the appliance model (`ocasim bound` on host-profile.yaml + this test) */
  char app_bottleneck[40];
  double err_rel;  /* (appliance model - measured) / measured Gb/s */
  double busiest;  /* measured busy share of the busier side's usable cores, 0..1 (val_busiest_share) */
  gboolean in_fit; /* a training row the fit used (CPU bound: busiest >= VAL_CPU_BOUND) */
} ValPredRow;

typedef struct {
  ValValidateConfig cfg;
  char *out_dir;
  ValProbe *probe;
  ValMicrobench mb;
  ValLatCurve lat;   /* DRAM loaded-latency points (validate/loadlat.h) */
  ValLatFit lat_fit; /* the line through them against the profile's memory capacity */
  gboolean lat_ok;   /* the line was fitted (lat_error says why not) */
  char lat_error[160];
  /* mechanics: every body of the check pass hashed */
  uint64_t mech_requests, mech_errors;
  char mech_detail[256];
  GArray *rows; /* ValPredRow: training rows first in run order, then held out */
  ValHostProfile start, profile;
  ValFitStats fit;
  gboolean fit_ok;
  char fit_error[160];
  int n_train, n_heldout;
  double heldout_median_abs_err, heldout_max_abs_err, train_median_abs_err;
  int n_heldout_quiet; /* held-out runs whose median foreign load was <= VAL_FOREIGN_LIMIT */
  double heldout_quiet_median_abs_err, heldout_quiet_max_abs_err;
  double model_agree_max;           /* largest |appliance - closed form| / closed form over all rows */
  char *profile_yaml;               /* host-profile.yaml text of the fitted profile */
  char app_error[160];              /* why the appliance model could not predict a row (empty: it did) */
  int n_app_failed;                 /* rows the appliance model could not predict (closed form shown) */
  char profile_error[256];          /* why host-profile.yaml as fitted does not load (empty: it does);
                                     * validate then fails and writes host-profile.rejected.yaml */
  ValHostPrediction ktls_reference; /* reference config with kTLS engaged (model only) */
  ValHostConfig ktls_reference_cfg;
  double elapsed_s;
  int nice_used; /* priority the runs had */
  char nice_note[96];
} ValReport;

/* Runs everything; *out receives the report even when a later step failed
 * (FALSE then, with the error).  Mechanics errors (a body that does not match)
 * make it fail. */
gboolean val_validate_run(const ValValidateConfig *cfg, ValReport **out, GError **error);
/* Frees a report of val_validate_run (NULL is allowed). */
void val_report_free(ValReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValReport, val_report_free)

G_END_DECLS
#endif
