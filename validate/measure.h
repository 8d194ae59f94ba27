/* validate/measure.h — fixed-duration, repeated measurement runs of the real
 * serving path (server and load generator in this process, on loopback), with
 * CPU time per core (/proc/stat) and per side (server / client thread clocks).
 */
#ifndef OCASIM_VALIDATE_MEASURE_H
#define OCASIM_VALIDATE_MEASURE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>

#include "validate/counters.h"
#include "serve/loadgen.h"
#include "serve/server.h"

G_BEGIN_DECLS

/* Most repetitions of a run and CPUs of a host the harness tracks (array sizes; assumed). */
#define VAL_MAX_REPS 16
#define VAL_MAX_CPUS 256

/* One configuration of the serving path. */
typedef struct {
  char name[64];
  ValServerMode mode;
  ValTlsVersion version; /* ignored for plain sendfile */
  ValCipher cipher;
  int server_threads, client_threads, connections;
  uint64_t file_bytes;  /* size of the file fetched */
  uint64_t range_bytes; /* 0: whole file; else ranges of this length spread over the file */
  gboolean train;       /* used by the fit (else held out for prediction) */
} ValRunSpec;

/* Where pinned threads run.  S server and C client threads on n CPUs:
 *   S + C <= n: server thread i on CPU i, client thread j on CPU S + C - 1 - j (one thread a CPU);
 *   S + C >  n, n >= 2: the server threads share CPUs 0 .. k-1 and the client threads CPUs k .. n-1,
 *              k = clamp(round(n S / (S + C)), 1, n - 1) (thread i on CPU i mod k of its set);
 *   n = 1: every thread on CPU 0.
 * The two ends of a connection thus run on different cores (cross_share 1) unless n = 1 (0);
 * each side keeps at most its set's CPUs busy. */
typedef struct {
  int server_first, server_cpus; /* server set: CPUs server_first .. server_first + server_cpus - 1 */
  int client_last, client_cpus;  /* client set: CPUs client_last - client_cpus + 1 .. client_last */
  double cross_share;            /* share of connections whose two ends run on different cores */
  char desc[64];                 /* "server CPU 0, client CPU 1" */
} ValPlacement;

/* Fills *out with the CPU sets of @server_threads and @client_threads pinned threads on @ncpus
 * CPUs by the rule above (counts below 1 taken as 1), and its one-line description. No errors. */
void val_placement(int server_threads, int client_threads, int ncpus, ValPlacement *out);

/* One repetition (or the per-field median / spread of several). */
typedef struct {
  double gbps; /* body bytes x 8 / window / 1e9 */
  double req_per_s;
  double bytes_per_req;                              /* body bytes per request */
  double server_cpb;                                 /* server worker threads' CPU cycles per body byte */
  double client_cpb;                                 /* load generator threads' CPU cycles per body byte */
  double box_cpb;                                    /* all busy CPU of the box (/proc/stat) per body byte */
  double softirq_cpb;                                /* ksoftirqd threads' CPU per body byte (outside both sides) */
  double irq_softirq_cpb;                            /* irq+softirq columns of /proc/stat per body byte (with tick-based
                           * accounting this time is also inside the threads' CPU time) */
  double server_util, client_util;                   /* CPU seconds per second (cores) */
  double box_busy_cores;                             /* busy cores of the whole box */
  double foreign_cores;                              /* busy cores not ours (other processes), >= 0 */
  double server_foreign_cores, client_foreign_cores; /* of those, on the server's / client's pinned CPUs
                           * (0 when unpinned or the sets overlap) */
  double steal_cores;                                /* steal time of /proc/stat per second of window (hypervisor), cores */
  /* resource counters of the window (validate/counters.h): the whole box's, loopback shared with
   * other tenants; reported, not fitted */
  double softirq_share;            /* softirq ticks / busy ticks of all CPUs */
  double lo_GBps;                  /* bytes sent on lo per second of window, 1e9 B/s */
  double disk_read_GBps;           /* NVMe reads (/proc/diskstats, nvme*), 1e9 B/s */
  double pgpgin_GBps;              /* bytes read into the page cache (/proc/vmstat pgpgin), 1e9 B/s */
  double dram_GBps;                /* DRAM read + write (uncore PMU), 1e9 B/s; -1: not measured */
  double tls_tx_sw, tls_tx_device; /* kTLS TX sessions set up during the repetition (/proc/net/tls_stat) */
  double errors, requests;
  int tls_version;
  ValCipher cipher;
  gboolean ktls_engaged;
} ValRunSample;

typedef struct {
  ValRunSpec spec;
  ValRunSample all[VAL_MAX_REPS]; /* every repetition run, in run order (attempts of them) */
  int nrep;
  ValRunSample rep[VAL_MAX_REPS]; /* those kept: the least contended, in run order */
  ValRunSample median;
  ValRunSample spread; /* half the min-max range of each field */
  int attempts;        /* repetitions run (>= nrep when contended ones were replaced) */
  gboolean pinned;     /* threads pinned as placement says (else unpinned) */
  ValPlacement placement;
  char note[160];
} ValRunResult;

typedef struct {
  double warmup_s;      /* load before the window, s */
  double duration_s;    /* measured window, s */
  int reps;             /* repetitions (>= 1; >= 3 for a spread) */
  double clock_hz;      /* cycles per CPU second (probe) */
  gboolean pin;         /* pin the threads as val_placement says (else unpinned) */
  ValVerify verify;     /* load generator checks */
  double foreign_limit; /* a repetition with more foreign busy cores than this is contended (0: 0.25) */
  int extra_reps;       /* at most this many extra repetitions replace contended ones */
  size_t wake_bytes;    /* load generator: response bytes per wake-up (ValLoadConfig.wake_bytes) */
  ValCtrDram *dram;     /* DRAM-traffic reader (val_ctr_dram_open; NULL: dram_GBps not measured) */
  gboolean quiet;
} ValMeasureConfig;

/* Path of the file of `bytes` bytes inside a prepared root: "/f-<bytes>.bin". */
char *val_measure_file_path(uint64_t bytes);
/* Creates (once) every file the specs need under root, with deterministic
 * content, and reads them into the page cache. */
gboolean val_measure_prepare(const char *root, const ValRunSpec *specs, int nspecs, GError **error);
/* The same one repetition at a time, so that the repetitions of several specs can be
 * interleaved: start from a zeroed r, call val_measure_rep while val_measure_needs_rep, then
 * val_measure_finish (median and spread of the least contended cfg->reps). */
gboolean val_measure_needs_rep(const ValMeasureConfig *cfg, const ValRunResult *r);
gboolean val_measure_rep(const ValMeasureConfig *cfg, const char *root, const ValRunSpec *spec, ValRunResult *r, GError **error);
void val_measure_finish(const ValMeasureConfig *cfg, ValRunResult *r);
/* Cores this workload did not get in s: other tenants' busy cores plus hypervisor steal. */
double val_measure_taken_cores(const ValRunSample *s);
/* A repetition is contended when its taken cores exceed cfg->foreign_limit. */
gboolean val_measure_contended(const ValMeasureConfig *cfg, const ValRunSample *s);
/* Adds the result as a JSON object. */
void val_measure_to_json(const ValRunResult *r, JsonBuilder *b);
/* Short label of a spec: "userspace tls1.3 aes-128-gcm s1c1 n8 1MiB". */
char *val_run_spec_label(const ValRunSpec *s);

G_END_DECLS
#endif
