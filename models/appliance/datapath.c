/* datapath.c — touch lists of the serving data paths (see datapath.h for the sources). */
#include "models/appliance/datapath.h"
#include "models/appliance/appliance.h"

static int add(Touch *t, int n, TouchAgent a, TouchBuf b, bool w, double bytes, TouchStall st, const char *what)
{
  t[n] = (Touch){ .agent = a, .buf = b, .write = w, .bytes = bytes, .stall = st, .what = what };
  return n + 1;
}

/* The two choices of each path (datapath.h). */
static const struct {
  DpMove move;
  DpTls tls;
} SHAPE[DP_COUNT] = {
  [DP_READ_WRITE] = { MOVE_READ_WRITE, TLS_USER_CPU },   [DP_READ_WRITE_KTLS] = { MOVE_READ_WRITE, TLS_KERNEL_CPU },
  [DP_SENDFILE] = { MOVE_SENDFILE, TLS_NONE },           [DP_SENDFILE_SW_KTLS] = { MOVE_SENDFILE, TLS_KERNEL_CPU },
  [DP_SENDFILE_NIC_KTLS] = { MOVE_SENDFILE, TLS_NIC },   [DP_READ_WRITE_NIC_KTLS] = { MOVE_READ_WRITE, TLS_NIC },
  [DP_READ_WRITE_PLAIN] = { MOVE_READ_WRITE, TLS_NONE },
};

DpMove datapath_move(DataPath path)
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, MOVE_SENDFILE);
  return SHAPE[path].move;
}

DpTls datapath_tls(DataPath path)
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, TLS_NONE);
  return SHAPE[path].tls;
}

DataPath datapath_of(DpMove move, DpTls tls)
{
  for (int p = 0; p < DP_COUNT; p++)
    if (SHAPE[p].move == move && SHAPE[p].tls == tls) return (DataPath)p;
  return DP_COUNT;
}

/* Appends a copy by the crypto CPU from buffer `from` to `to` (R then W); `um` is the share of
 * a user buffer's touches that reach DRAM. */
static int copy_touches(Touch *t, int n, TouchBuf from, TouchBuf to, double um, const char *rd, const char *wr)
{
  n = add(t, n, AG_CPU_CRYPTO, from, false, from == BUF_USER ? um : 1.0, ST_BULK, rd);
  return add(t, n, AG_CPU_CRYPTO, to, true, to == BUF_USER ? um : 1.0, ST_NONE, wr);
}

int datapath_touches(DataPath path, gboolean ordinary_stores, double user_miss, double meta_bytes, double ack_bytes,
                     Touch out[DP_MAX_TOUCHES])
{
  g_return_val_if_fail(path >= 0 && path < DP_COUNT, 0);
  const double um = user_miss;
  int n = 0;
  n = add(out, n, AG_DISK, BUF_PAGECACHE, true, 1.0, ST_NONE, "disk DMA write");
  if (SHAPE[path].move == MOVE_READ_WRITE) {
    n = copy_touches(out, n, BUF_PAGECACHE, BUF_USER, um, "copyout read", "copyout write");
    switch (SHAPE[path].tls) {
      case TLS_USER_CPU: n = copy_touches(out, n, BUF_USER, BUF_USER, um, "encrypt read", "encrypt write"); break;
      case TLS_KERNEL_CPU:
      case TLS_NIC: n = copy_touches(out, n, BUF_USER, BUF_USER, um, "record copy read", "record copy write"); break;
      default: break;
    }
    n = copy_touches(out, n, BUF_USER, BUF_SOCKBUF, um, "copyin read", "copyin write");
    if (SHAPE[path].tls == TLS_KERNEL_CPU)
      n = copy_touches(out, n, BUF_SOCKBUF, BUF_SOCKBUF, um, "encrypt read", "encrypt write");
    n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
  } else if (SHAPE[path].tls == TLS_KERNEL_CPU) {
    n = add(out, n, AG_CPU_CRYPTO, BUF_PAGECACHE, false, 1.0, ST_BULK, "encrypt read");
    if (ordinary_stores) n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, false, 1.0, ST_BULK, "read for ownership");
    n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "encrypt write");
    n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
  } else {
    n = add(out, n, AG_NIC, BUF_PAGECACHE, false, 1.0, ST_NONE, "NIC DMA read");
  }
  if (meta_bytes > 0) {
    n = add(out, n, AG_CPU_STACK, BUF_META, false, meta_bytes, ST_META, "metadata read");
    n = add(out, n, AG_CPU_STACK, BUF_META, true, meta_bytes, ST_NONE, "metadata write");
  }
  if (ack_bytes > 0) n = add(out, n, AG_INGRESS_NIC, BUF_META, true, ack_bytes, ST_NONE, "ACK DMA write");
  return n;
}

double datapath_bulk_touches(DataPath path, gboolean ordinary_stores)
{
  Touch t[DP_MAX_TOUCHES];
  int n = datapath_touches(path, ordinary_stores, 1.0, 0, 0, t);
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i].bytes;
  return s;
}

int datapath_copies(DataPath path)
{
  if (datapath_move(path) != MOVE_READ_WRITE) return 0;
  DpTls t = datapath_tls(path);
  return t == TLS_KERNEL_CPU || t == TLS_NIC ? 3 : 2; /* + the server's record copy (datapath.h) */
}

gboolean datapath_cpu_crypto(DataPath path)
{
  DpTls t = datapath_tls(path);
  return t == TLS_KERNEL_CPU || t == TLS_USER_CPU;
}

gboolean datapath_nic_crypto(DataPath path)
{
  return datapath_tls(path) == TLS_NIC;
}

gboolean datapath_egress_by_content(Egress egress, Placement placement)
{
  return egress == EG_BY_CONTENT || placement == PL_STRICT_DISK_CENTRIC;
}

double datapath_appliance_share(const Appliance *a, gboolean (*pred)(DataPath))
{
  double alt = a->wl.alt_fraction;
  return (1.0 - alt) * pred(a->path) + alt * pred(a->wl.alt_path);
}

APP_ENUM_DEFINE(datapath, DATAPATH_MAP);
const char *const datapath_alt_names[] = { DATAPATH_MAP(APP_ENUM_NAME) "none", NULL };
APP_ENUM_DEFINE(sendfile_mode, SENDFILE_MODE_MAP);
APP_ENUM_DEFINE(placement, PLACEMENT_MAP);
APP_ENUM_DEFINE(egress, EGRESS_MAP);
APP_ENUM_CONF_OK(DataPath);
APP_ENUM_CONF_OK(SendfileMode);
APP_ENUM_CONF_OK(Placement);
APP_ENUM_CONF_OK(Egress);

const char *datapath_name(DataPath p)
{
  return APP_ENUM_NAME_OF(datapath, DP_COUNT, p);
}
