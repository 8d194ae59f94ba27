/* appliance/loader.h — the YAML schema of `kind: appliance` scenarios and their binding to an
 * Appliance (see scenarios/README.md for every key, its unit, default and meaning).
 *
 * A scenario includes a platform file (`platform: platforms/rome-7502p.yaml`) that describes
 * the machine once; the scenario overlays software, workload and, for published results, a
 * `reference:` block naming the result it reproduces. Devices come in groups with a `count`
 * and a position: `socket` + `quadrant` (physical), or `node` (NUMA node at the platform's
 * NPS). Every impossible platform (a device on a node that does not exist, 0 memory channels,
 * NPS4 on a CPU without it, a port bound to a missing node) is a located error
 * FILE:LINE:COL: key.path: message in the SIM_CONF_ERROR domain.
 */
#ifndef MODELS_APPLIANCE_LOADER_H
#define MODELS_APPLIANCE_LOADER_H
#include "models/appliance/appliance.h"
#include "models/appliance/demand.h"
#include "sim/conf.h"

/* Resource kinds one reference may name as the published bottleneck (a schema list limit:
 * the published texts name at most two; assumed headroom). */
#define APPCONF_MAX_KINDS 4
/* The reproduction rule a published result is held to (README, reference results: "the
 * issue's 10 % / 10-point rule"): throughput within 10 %, CPU within 10 points. A wider
 * reference.tolerance_pct / cpu_tolerance_pts needs a known_deviation and still FAILs. */
#define APP_REF_TOLERANCE_PCT     10.0
#define APP_REF_CPU_TOLERANCE_PTS 10.0

/* What a reference scenario reproduces (the `reference:` block). */
typedef struct {
  gboolean present;
  char *id;         /* result id in published.yaml */
  char *source;     /* talk(s) */
  double gbps;      /* published throughput */
  double cpu_pct;   /* published CPU %, < 0 when not published */
  char *bottleneck; /* published bottleneck text, NULL when not published */
  int n_kinds;      /* resource kinds that match the published bottleneck */
  ResKind kinds[APPCONF_MAX_KINDS];
  char *cause;              /* "remote_stall" when a CPU limit must come from remote stalls */
  double fabric_util_pct;   /* published fabric (UPI) utilisation, < 0 when not published */
  double dram_GBps;         /* published DRAM traffic, < 0 when not published */
  double hot_port_gbps;     /* per-port throughput on the hot node, < 0 when not published */
  double cold_port_gbps;    /* per-port throughput on the other nodes, < 0 when not published */
  double tolerance_pct;     /* CI tolerance on throughput (10 unless a known deviation) */
  double cpu_tolerance_pts; /* CI tolerance on CPU % points (10 unless a known deviation) */
  char *known_deviation;    /* why the model misses by more than 10 % / 10 points, NULL if it does not */
  char *same_as;            /* id of a result of the same configuration with the same figures, NULL if none */
  gboolean changed;         /* the scenario was changed (--set) after it named this result */
} AppReference;

typedef struct {
  char *name;
  char *description;
  double duration_s; /* simulated time for `ocasim run` */
  double warmup_s;
  double rate_precision; /* `ocasim run`: the flow net's rate precision EPS (sim/flow.h); 0: exact */
  AppReference ref;
  char **overrides; /* the command-line overrides that shaped it, "key.path=value" (sim_conf_overrides) */
  char **failures;  /* the scenario's `failures:` (NULL-terminated, NULL when none): components taken out in a
                       what-if, as --fail names them (models/appliance/failure.h) */
} AppScenarioInfo;

/* Binds the document root to an Appliance (+ info). On error returns FALSE with a located
 * SIM_CONF_ERROR. info may be NULL. */
gboolean appliance_from_conf(const SimConfNode *root, Appliance *out, AppScenarioInfo *info, GError **error);
/* Loads FILE (following `platform:`), applies the NULL-terminated --set assignments, binds. */
gboolean appliance_load_file(const char *path, const char *const *sets, Appliance *out, AppScenarioInfo *info, GError **error);
/* Frees what appliance_from_conf() put in @info (its strings and lists) and leaves it empty; NULL is allowed. */
void app_scenario_info_clear(AppScenarioInfo *info);
/* The root schema of an appliance scenario, and in *nodes (may be NULL) the schemas of its
 * sections bound later (loopback:, reference:): the tables appliance_conf_markdown() prints,
 * for other documents (JSON Schema, key lists; sim/conf_schema.h). */
const SimConfField *appliance_conf_schema(const SimConfNodeSchema **nodes);
/* Appends the Markdown tables of the schema (for scenarios/README.md). */
void appliance_conf_markdown(GString *out);

#endif /* MODELS_APPLIANCE_LOADER_H */
