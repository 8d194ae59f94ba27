/* component.c — the component base (component.h): building resources and load-dependent terms,
 * the nodes of a class's roles, located conf errors, and the box's counts every component reads. */
#include "models/appliance/component.h"
#include <string.h>

int app_build_add_res(AppBuild *b, const char *name, ResKind kind, double cap, double limit, double scale, const char *unit,
                      int node)
{
  g_return_val_if_fail(b->res != NULL, -1);
  DmResource r = { .kind = kind, .capacity = cap, .limit = limit, .value_scale = scale, .unit = unit, .node = node };
  g_strlcpy(r.name, name, sizeof r.name);
  r.nic = r.port = r.drive = r.link = -1;
  g_array_append_val(b->res, r);
  return (int)b->res->len - 1;
}

DmResource *app_build_res(AppBuild *b, int r)
{
  if (b->res) return &g_array_index(b->res, DmResource, r);
  g_return_val_if_fail(r >= 0 && r < b->m->n_res, NULL);
  return &b->m->res[r];
}

void app_lat_add(GArray *lat, int res, int dram, double per_ns)
{
  if (per_ns == 0) return;
  for (guint i = 0; i < lat->len; i++) {
    DmLatTerm *t = &g_array_index(lat, DmLatTerm, i);
    if (t->res == res && t->dram == dram) {
      t->per_ns += per_ns;
      return;
    }
  }
  DmLatTerm t = { res, dram, per_ns };
  g_array_append_val(lat, t);
}

void app_build_add_lat(AppBuild *b, int res, int dram, double per_ns)
{
  g_return_if_fail(b->cur_lat != NULL);
  app_lat_add(b->cur_lat, res, dram, per_ns);
}

/* A role's node: fixed, or -1 for uniformly random. */
typedef struct {
  int crypto, stack, pagecache, sockbuf, meta;
} Roles;

static Roles class_roles(const AppBuild *b, const DmClass *k)
{
  int disk_node = k->disk_node, home = k->home_node;
  switch (b->a->placement) {
    case PL_NONE: return (Roles){ -1, -1, -1, -1, -1 };
    case PL_NETWORK_CENTRIC: return (Roles){ home, home, home, home, home };
    case PL_DISK_CENTRIC: return (Roles){ disk_node, home, disk_node, disk_node, home };
    case PL_STRICT_DISK_CENTRIC: return (Roles){ disk_node, disk_node, disk_node, disk_node, disk_node };
    default: g_assert_not_reached();
  }
}

int app_build_cpu_node(const AppBuild *b, const DmClass *k, TouchAgent agent)
{
  Roles ro = class_roles(b, k);
  return agent == AG_CPU_CRYPTO ? ro.crypto : ro.stack;
}

int app_build_buf_node(const AppBuild *b, const DmClass *k, TouchBuf buf)
{
  Roles ro = class_roles(b, k);
  switch (buf) {
    case BUF_PAGECACHE: return ro.pagecache;
    case BUF_SOCKBUF: return ro.sockbuf;
    case BUF_META: return ro.meta;
    default: return ro.crypto; /* user buffer: on the crypto CPU's node */
  }
}

int demand_find(const DemandModel *m, const char *name)
{
  for (int r = 0; r < m->n_res; r++)
    if (strcmp(m->res[r].name, name) == 0) return r;
  return -1;
}

gboolean app_conf_error(GError **error, const SimConfNode *root, const char *path, SimConfErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  sim_conf_set_error(error, sim_conf_node_find(root, path), code, "%s", msg);
  return FALSE;
}

int appliance_cores_per_node(const Appliance *a)
{
  return a->topo.cores_per_socket / a->topo.nps;
}

int appliance_ports(const Appliance *a)
{
  int n = 0;
  for (int i = 0; i < a->n_nics; i++) n += a->nics[i].ports;
  return n;
}

double appliance_line_Bps(const Appliance *a)
{
  double line_Bps = 0;
  for (int i = 0; i < a->n_nics; i++) line_Bps += a->nics[i].ports * a->nics[i].port_bps / 8.0;
  return line_Bps;
}
