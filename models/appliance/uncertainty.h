/* uncertainty.h — what a scenario says it does not know: the `uncertainty:` section of a platform
 * or scenario file, and the registry of the values it may name.
 *
 * What it models: a platform's own value with a spread, as
 *     - {param: memory.latency, low: 0.8, high: 1.4, kind: assumed, source: "..."}
 * low and high are factors: the true value lies within low x .. high x of the file's value with
 * 95 % probability, a split normal in ln space drawn as exp(z sigma),
 *     sigma = -ln(low) / 1.96 (z < 0),  ln(high) / 1.96 (z > 0)
 * The registry (UNC_PARAM_MAP) lists the values a section may name, what each scales and the
 * measurement that would pin it. Shared coefficients carry their spreads in coeffs.def / coeffs.c.
 * Leaves out: correlations between a platform's values (each is drawn on its own), and discrete
 * unknowns (a device map, a DIMM count): those are what-ifs (`--set`, sweeps), not spreads.
 * Evidence and history: docs/model/uncertainty.md.
 */
#ifndef MODELS_APPLIANCE_UNCERTAINTY_H
#define MODELS_APPLIANCE_UNCERTAINTY_H
#include "models/appliance/app_enum.h"
#include "sim/conf.h"

/* What kind of knowledge a spread stands for (reports print the name). */
#define UNC_KIND_MAP(X)                                                                                         \
  X(UNC_FITTED, "fitted")              /* a shared coefficient of the fit: its covariance */                    \
  X(UNC_SOURCED, "sourced")            /* the spread its source gives (several measurements, a quoted range) */ \
  X(UNC_ASSUMED, "assumed")            /* no source: a stated range */                                          \
  X(UNC_TRANSFER, "platform-transfer") /* a cost fitted on other platforms carried to this one */               \
  X(UNC_MEASURED, "measured")          /* measured on this host (a costs: profile of `ocasim validate`) */
typedef enum { UNC_KIND_MAP(APP_ENUM_ID) UNC_KIND_COUNT } UncKind;
APP_ENUM_DECLARE(unc_kind);
APP_ENUM_CONF_OK(UncKind);

/* The values an `uncertainty:` entry may name (its `param:`), each scaling the file's value(s). */
#define UNC_PARAM_MAP(X)                                                                                   \
  X(UNC_CPU_CLOCK, "cpu.clock")                       /* sustained all-core clock */                       \
  X(UNC_CPU_CRYPTO, "cpu.crypto_cpb")                 /* bulk cipher cycles/B (table or cpu.crypto_cpb) */ \
  X(UNC_MEM_SPEED, "memory.speed")                    /* DIMM transfer rate: DRAM bandwidth */             \
  X(UNC_MEM_LATENCY, "memory.latency")                /* idle local DRAM latency */                        \
  X(UNC_INTRA_LINK, "topology.intra_link")            /* quadrant-to-quadrant link bandwidth */            \
  X(UNC_INTRA_PENALTY, "topology.intra_penalty")      /* latency to another quadrant */                    \
  X(UNC_INTER_PENALTY, "topology.inter_penalty")      /* latency to the other socket */                    \
  X(UNC_LINK_RATE, "topology.links.rate")             /* every inter-socket link's transfer rate */        \
  X(UNC_LINK_DEV_EFF, "topology.links.eff_dev_write") /* device DMA write payload efficiency on a link */  \
  X(UNC_NVME_READ, "nvme.read")                       /* every drive's sustained read */                   \
  X(UNC_NVME_LATENCY, "nvme.latency")                 /* every drive's read latency */                     \
  X(UNC_NIC_KTLS, "nics.ktls")                        /* every card's inline TLS engine rate */            \
  X(UNC_PCIE_RTT, "pcie.read_rtt")                    /* every device's PCIe read round trip */            \
  X(UNC_COSTS, "costs")                               /* the measured cost profile's cycles (costs:) */
typedef enum { UNC_PARAM_MAP(APP_ENUM_ID) UNC_PARAM_COUNT } UncParam;
APP_ENUM_DECLARE(unc_param);
APP_ENUM_CONF_OK(UncParam);

/* Most entries of an `uncertainty:` section (array size; assumed: one per registry value, twice). */
#define UNC_MAX_ENTRIES (2 * UNC_PARAM_COUNT)
/* Room for an entry's source text, bytes (longer texts are a located error). */
#define UNC_SOURCE_LEN 200

typedef struct {
  UncParam param;
  UncKind kind;                /* sourced or assumed (a measured costs profile: measured) */
  double low, high;            /* factors on the file's value: the central 95 % */
  char source[UNC_SOURCE_LEN]; /* one line: why this range */
} UncEntry;

/* The section, bound into the Appliance (a plain struct: copies are deep). */
typedef struct {
  int n;
  UncEntry e[UNC_MAX_ENTRIES];
} UncertaintyCfg;

/* What the section binds into before its checks (AppConf.unc_list elements). */
typedef struct {
  UncParam param;
  UncKind kind;
  double low, high;
  char *source;
} UncEntryConf;

extern const SimConfField uncertainty_entry_schema[];

/* Copies the bound entries @list (UncEntryConf) into @out after its checks, located under @root:
 * low <= 1 <= high with low < high (a range around the file's value), a source for each, each
 * param once, kind sourced, assumed or measured, measured only for `costs`. */
gboolean uncertainty_finish(const SimConfList *list, const SimConfNode *root, UncertaintyCfg *out, GError **error);

/* What registry value @p scales (one line) and the measurement that would pin it (`ocasim
 * validate` on the host, a datasheet figure, a named counter). */
const char *uncertainty_param_what(UncParam p);
const char *uncertainty_param_pin_by(UncParam p);

/* The entry of @cfg naming @p, NULL if none. */
const UncEntry *uncertainty_find(const UncertaintyCfg *cfg, UncParam p);

#endif /* MODELS_APPLIANCE_UNCERTAINTY_H */
