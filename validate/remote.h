/* validate/remote.h — calibration over a real interface: the server on this host, `ocasim load`
 * on client machines (over ssh, or any command prefix: `ip netns exec NS` in the tests), their
 * results summed and every body hashed; the same run with the clients on loopback as its twin;
 * resource counters of both; and the appliance model's prediction for each run on
 * host-platform.yaml (validate/hostplat.h), throughput and each resource's utilisation.
 *
 * Trust model: validate starts nothing that listens beyond the run's own server, which binds only
 * the address given (--server-addr) for the run's length; the clients are reached only through
 * the command prefix the user gives (ssh with the user's own keys by default), so validate holds
 * no credential and opens no agent port.
 */
#ifndef OCASIM_VALIDATE_REMOTE_H
#define OCASIM_VALIDATE_REMOTE_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "validate/counters.h"
#include "serve/server.h"
#include "serve/tls.h"

G_BEGIN_DECLS

/* Where the clients are and how to reach them. */
typedef struct {
  char **clients;            /* client names (host names for ssh, namespace names for ip netns exec) */
  const char *exec;          /* command prefix, "{}" replaced by the client name (default "ssh {}") */
  const char *client_ocasim; /* the ocasim binary on the clients (default "ocasim") */
  const char *local_ocasim;  /* the ocasim binary of the loopback twin (default /proc/self/exe) */
  const char *server_addr;   /* IPv4 address the server binds and the clients connect to */
  const char *net_filter;    /* interfaces whose counters are this run's traffic (prefixes, comma separated;
                              * NULL: every interface but lo) */
  const char *disk_filter;   /* drives whose reads count (NULL: "nvme") */
  double timeout_s;          /* a client that has not finished in this long fails the run (0: 600) */
} ValRemoteConfig;

/* One configuration: the server's mode and threads, what each client fetches. */
typedef struct {
  ValServerMode mode;
  ValTlsVersion version;
  ValCipher cipher;
  int server_threads;
  int client_threads; /* per client */
  int connections;    /* per client */
  int requests;       /* per connection: count mode, so every run moves a known number of bytes */
  uint64_t file_bytes;
  int nfiles; /* 0: every connection fetches one shared file, which the page cache holds; > 0: a file set
               * that is not cached: each client fetches its own nfiles files (connections = nfiles,
               * requests 1: every file once), evicted (posix_fadvise DONTNEED) before the run, so each
               * body is read from the drive */
} ValRemoteSpec;

/* One file of a run's set: its path under the served root and its SHA-256. */
typedef struct {
  char path[64];
  unsigned char sha[32];
} ValRemoteFile;

/* The model's view of one run (host-platform.yaml with the run's test overlaid, bound mode). */
typedef struct {
  gboolean ok;
  char error[200];
  double sat_gbps;      /* saturation throughput X* */
  char bottleneck[40];  /* the resource that limits it */
  double cpu_util;      /* at the measured throughput: busy cycles / all cycles */
  double dram_GBps;     /* DRAM traffic at the measured throughput, 1e9 B/s */
  double nvme_GBps;     /* drive reads */
  double nic_gbps;      /* NIC port traffic */
  double nic_util_max;  /* the busiest port's utilisation */
  double nvme_util_max; /* the busiest drive's */
  double dram_util_max; /* the busiest DRAM node's */
  /* the 80 % prediction interval of sat_gbps (models/modes/interval.h); lo = hi = 0: none */
  double sat_gbps_lo, sat_gbps_hi;
} ValRemotePred;

/* One run's measurements. */
typedef struct {
  ValRemoteSpec spec;
  gboolean loopback; /* the twin: the clients on this host, over 127.0.0.1 */
  int nclients;
  uint64_t requests_ok, expected_requests, bytes_body, expected_bytes, errors;
  gboolean sha_checked;         /* every client hashed every body */
  double wall_s;                /* first client started to last one ended (counters cover it) */
  uint64_t cached_before_bytes; /* an uncached run: bytes of its set still cached when it began */
  double load_s;                /* the longest client's own load window (after its start-up: ssh, TLS set-up) */
  double gbps;                  /* body bytes x 8 / load_s */
  ValServerStats server;
  ValCtrDelta ctr; /* counters over the run, NICs and drives filtered */
  ValRemotePred pred;
  double cpu_share;   /* measured busy cores / online CPUs */
  gboolean cpu_bound; /* cpu_share >= VAL_CPU_BOUND (pipeline.h) */
} ValRemoteRun;

/* Raises this process's soft RLIMIT_NOFILE to its hard limit: thousands of connections need more
 * descriptors than the usual soft 1024 (the server keeps a socket and a file each). Returns the
 * soft limit now in force. No errors (a refusal keeps the old limit). */
long val_remote_raise_nofile(void);

/* "userspace tls1.3 aes-128-gcm s1 2x(c1 n8) 1MiB x16" */
char *val_remote_spec_label(const ValRemoteSpec *s);

/* The argv of one client (exposed for tests): exec with "{}" replaced by name (NULL: this host's
 * binary, no prefix, against 127.0.0.1), split as a shell would (g_shell_parse_argv; no shell
 * runs), then `OCASIM load --host ADDR --port P ... --path F --sha256 H ... --json` for the n files.
 * Errors: a name with characters other than [A-Za-z0-9._:@-], an exec that does not parse.
 * (transfer full) */
char **val_remote_client_argv(const ValRemoteConfig *rc, const char *name, int port, const ValRemoteSpec *s,
                              const ValRemoteFile *files, int n, GError **error);

/* Path of file k of the uncached set of `bytes`-byte files: "/set-<bytes>-<k>.bin". (transfer full) */
char *val_remote_set_path(uint64_t bytes, int k);
/* Creates (once) the n files of that set under root with deterministic content (seeded by size
 * and index), flushed to the drive, and fills files[] (paths and SHA-256). Errors: I/O. */
gboolean val_remote_prepare_set(const char *root, uint64_t bytes, int n, ValRemoteFile *files, GError **error);
/* Drops the n files from the page cache (fdatasync, posix_fadvise DONTNEED) and checks with
 * mincore that they left it, trying again after a pause while pages stay (a page still held by a
 * socket of the run before, whose last ACKs are not yet processed, cannot be dropped); @cached
 * (may be NULL): the bytes still cached after the last try, which the run serves without a drive
 * read. Errors: open. */
gboolean val_remote_evict(const char *root, const ValRemoteFile *files, int n, uint64_t *cached, GError **error);

/* Runs spec: starts the server on root (the shared file prepared by the caller, val_measure_prepare;
 * the uncached set by the run itself, val_remote_prepare_set, and evicted before it), takes
 * counter snapshots around the clients' run, sums their JSON results. loopback: run every client
 * here (this binary, no prefix) against 127.0.0.1, with "lo" as the interface. Errors: a client
 * that fails to start, exits non-zero (a body that does not hash or has the wrong length) or times
 * out; *out keeps what was measured. */
gboolean val_remote_run(const ValRemoteConfig *rc, gboolean loopback, const char *root, const ValRemoteSpec *spec,
                        ValCtrDram *dram, ValRemoteRun *out, GError **error);

/* Fills run->pred from platform_yaml (host-platform.yaml's text) with the run's test overlaid:
 * data path of the mode (kTLS only where the server engaged it), request and title size the file,
 * the page cache holding it, every CPU available; utilisations at the measured throughput. */
void val_remote_predict(const char *platform_yaml, ValRemoteRun *run);

/* The report: a markdown table of every run, measured and predicted Gb/s with the error, CPU,
 * NIC, drive and DRAM figures measured beside the model's, which runs were CPU bound, and the
 * remote-versus-loopback comparison of bytes and counters. (transfer full) */
char *val_remote_report_md(const ValRemoteRun *runs, int n, const char *platform_note);
/* The same as JSON (an array of run objects). */
void val_remote_runs_to_json(const ValRemoteRun *runs, int n, JsonBuilder *b);

G_END_DECLS
#endif /* OCASIM_VALIDATE_REMOTE_H */
