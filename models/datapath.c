/* datapath.c — touch lists of the serving data paths (see datapath.h for the sources). */
#include "models/datapath.h"

static int add(Touch *t, int n, TouchAgent a, TouchBuf b, bool w, double bytes, TouchStall st, const char *what)
{
  t[n] = (Touch){ .agent = a, .buf = b, .write = w, .bytes = bytes, .stall = st, .what = what };
  return n + 1;
}

int datapath_touches(DataPath path, gboolean ordinary_stores, double meta_bytes, double ack_bytes, Touch out[DP_MAX_TOUCHES])
{
  int n = 0;
  n = add(out, n, AG_DISK, BUF_PAGECACHE, true, 1.0, ST_NONE, "disk DMA write");
  switch (path) {
    case DP_READ_WRITE:
      n = add(out, n, AG_CPU_CRYPTO, BUF_PAGECACHE, false, 1.0, ST_BULK, "copyout read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, true, 1.0, ST_NONE, "copyout write");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, false, 1.0, ST_BULK, "encrypt read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, true, 1.0, ST_NONE, "encrypt write");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, false, 1.0, ST_BULK, "copyin read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "copyin write");
      n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
      break;
    case DP_READ_WRITE_KTLS:
      n = add(out, n, AG_CPU_CRYPTO, BUF_PAGECACHE, false, 1.0, ST_BULK, "copyout read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, true, 1.0, ST_NONE, "copyout write");
      n = add(out, n, AG_CPU_CRYPTO, BUF_USER, false, 1.0, ST_BULK, "copyin read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "copyin write");
      n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, false, 1.0, ST_BULK, "encrypt read");
      n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "encrypt write");
      n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
      break;
    case DP_SENDFILE:
    case DP_SENDFILE_NIC_KTLS: n = add(out, n, AG_NIC, BUF_PAGECACHE, false, 1.0, ST_NONE, "NIC DMA read"); break;
    case DP_SENDFILE_SW_KTLS:
      n = add(out, n, AG_CPU_CRYPTO, BUF_PAGECACHE, false, 1.0, ST_BULK, "encrypt read");
      if (ordinary_stores) n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, false, 1.0, ST_BULK, "read for ownership");
      n = add(out, n, AG_CPU_CRYPTO, BUF_SOCKBUF, true, 1.0, ST_NONE, "encrypt write");
      n = add(out, n, AG_NIC, BUF_SOCKBUF, false, 1.0, ST_NONE, "NIC DMA read");
      break;
    default: g_return_val_if_reached(0);
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
  int n = datapath_touches(path, ordinary_stores, 0, 0, t);
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i].bytes;
  return s;
}

int datapath_copies(DataPath path)
{
  return (path == DP_READ_WRITE || path == DP_READ_WRITE_KTLS) ? 2 : 0;
}

gboolean datapath_cpu_crypto(DataPath path)
{
  return path == DP_READ_WRITE || path == DP_READ_WRITE_KTLS || path == DP_SENDFILE_SW_KTLS;
}

gboolean datapath_nic_crypto(DataPath path)
{
  return path == DP_SENDFILE_NIC_KTLS;
}

gboolean datapath_is_sendfile(DataPath path)
{
  return path == DP_SENDFILE || path == DP_SENDFILE_SW_KTLS || path == DP_SENDFILE_NIC_KTLS;
}

APP_ENUM_DEFINE(datapath, DATAPATH_MAP);
const char *const datapath_alt_names[] = { DATAPATH_MAP(APP_ENUM_NAME) "none", NULL };
APP_ENUM_DEFINE(sendfile_mode, SENDFILE_MODE_MAP);
APP_ENUM_DEFINE(placement, PLACEMENT_MAP);
APP_ENUM_CONF_OK(DataPath);
APP_ENUM_CONF_OK(SendfileMode);
APP_ENUM_CONF_OK(Placement);

const char *datapath_name(DataPath p)
{
  return APP_ENUM_NAME_OF(datapath, DP_COUNT, p);
}
