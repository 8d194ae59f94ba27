/* failure.c — failure what-ifs (see failure.h). */
#include "models/appliance/failure.h"
#include <stdio.h>
#include <string.h>

typedef enum { FAIL_DRIVE, FAIL_CARD, FAIL_PORT } FailKind;

typedef struct {
  FailKind kind;
  int index, port;
} Fail;

/* What the indices of a --fail entry are, in every message that explains them. */
static const char FAIL_INDICES[] =
    "indices as in the resource names nvmeD, nicN.portP: drives and cards counted one by one, not the scenario's groups";

/* Appends the names @prefix0.. of @n components, group by group ("nic0-nic1 from nics[0] (count 2),
 * nic2 from nics[1]"): how the indices of --fail map onto the scenario's groups. */
static void list_groups(GString *s, const char *prefix, const char *key, int n, const int *id, const int *group)
{
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && group[j + 1] == group[i]) j++;
    g_string_append_printf(s, "%s%s%d", i ? ", " : "", prefix, id[i]);
    if (j > i) g_string_append_printf(s, "-%s%d", prefix, id[j]);
    g_string_append_printf(s, " from %s[%d]", key, group[i]);
    if (j > i) g_string_append_printf(s, " (count %d)", j - i + 1);
    i = j + 1;
  }
}

/* The range error: which drives or cards the box has, by name and scenario group. */
static gboolean out_of_range(const Appliance *a, const char *s, gboolean drive, GError **error)
{
  int id[MAX(APP_MAX_DRIVES, APP_MAX_NICS)], group[MAX(APP_MAX_DRIVES, APP_MAX_NICS)];
  int n = drive ? a->n_drives : a->n_nics;
  for (int i = 0; i < n; i++) {
    id[i] = drive ? a->drives[i].id : a->nics[i].id;
    group[i] = drive ? a->drives[i].group : a->nics[i].group;
  }
  g_autoptr(GString) l = g_string_new(NULL);
  list_groups(l, drive ? "nvme" : "nic", drive ? "nvme" : "nics", n, id, group);
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': the box has %d %s%s: %s (%s)", s, n,
              drive ? "drive" : "NIC", n == 1 ? "" : "s", l->str, FAIL_INDICES);
  return FALSE;
}

/* Position in @a of the drive (@drive) or card whose healthy-box index is @id; -1, with the
 * range error for entry @s, when the box has none. */
static int position_of(const Appliance *a, const char *s, gboolean drive, int id, GError **error)
{
  int n = drive ? a->n_drives : a->n_nics;
  for (int i = 0; i < n; i++)
    if ((drive ? a->drives[i].id : a->nics[i].id) == id) return i;
  out_of_range(a, s, drive, error);
  return -1;
}

/* Parses one entry; FALSE with an error naming it. The indices are the healthy box's (NicCard.id,
 * NvmeDrive.id); out->index is the component's position in @a. */
static gboolean parse_one(const Appliance *a, const char *s, Fail *out, GError **error)
{
  int i = -1, p = -1, n = 0;
  if (sscanf(s, "nvme[%d]%n", &i, &n) == 1 && s[n] == '\0') {
    int d = position_of(a, s, TRUE, i, error);
    if (d < 0) return FALSE;
    *out = (Fail){ FAIL_DRIVE, d, -1 };
    return TRUE;
  }
  n = 0;
  if (sscanf(s, "nics[%d].ports[%d]%n", &i, &p, &n) == 2 && s[n] == '\0') {
    int c = position_of(a, s, FALSE, i, error);
    if (c < 0) return FALSE;
    const NicCard *nc = &a->nics[c];
    int k = -1;
    for (int q = 0; q < nc->ports; q++)
      if (nc->port_id[q] == p) k = q;
    if (k < 0) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': nic%d (from nics[%d]) has %d port%s", s, i,
                  nc->group, nc->ports, nc->ports == 1 ? "" : "s");
      return FALSE;
    }
    *out = (Fail){ FAIL_PORT, c, k };
    return TRUE;
  }
  n = 0;
  if (sscanf(s, "nics[%d]%n", &i, &n) == 1 && s[n] == '\0') {
    int c = position_of(a, s, FALSE, i, error);
    if (c < 0) return FALSE;
    *out = (Fail){ FAIL_CARD, c, -1 };
    return TRUE;
  }
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': give nvme[D], nics[N] or nics[N].ports[P] (%s)", s,
              FAIL_INDICES);
  return FALSE;
}

gboolean appliance_fail(Appliance *a, const char *const *fail, GError **error)
{
  gboolean drive_down[APP_MAX_DRIVES] = { FALSE }, card_down[APP_MAX_NICS] = { FALSE };
  gboolean port_down[APP_MAX_NICS][NIC_MAX_PORTS] = { { FALSE } };
  for (const char *const *f = fail; f && *f; f++) {
    Fail x = { FAIL_DRIVE, -1, -1 };
    if (!parse_one(a, *f, &x, error)) return FALSE;
    /* a component named twice (or a port of a card named down) is most likely a typo for another one */
    gboolean again = x.kind == FAIL_DRIVE  ? drive_down[x.index]
                     : x.kind == FAIL_CARD ? card_down[x.index]
                                           : card_down[x.index] || port_down[x.index][x.port];
    for (int p = 0; x.kind == FAIL_CARD && p < a->nics[x.index].ports; p++) again |= port_down[x.index][p];
    if (again) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': already down (%s)", *f,
                  x.kind == FAIL_DRIVE ? "named twice" : "named twice, or with its card");
      return FALSE;
    }
    if (x.kind == FAIL_DRIVE) drive_down[x.index] = TRUE;
    if (x.kind == FAIL_CARD) card_down[x.index] = TRUE;
    if (x.kind == FAIL_PORT) port_down[x.index][x.port] = TRUE;
  }
  /* ports first, then whole cards and drives; the survivors keep their ids, so their resource names */
  int ports_left = 0;
  for (int i = 0; i < a->n_nics; i++) {
    NicCard *c = &a->nics[i];
    int k = 0;
    for (int p = 0; p < c->ports; p++)
      if (!port_down[i][p]) { /* the port keeps its healthy-box number (port_id): nicN.portP */
        c->domain[k] = c->domain[p];
        c->port_id[k++] = c->port_id[p];
      }
    if (k == 0) card_down[i] = TRUE; /* every port down: the card carries nothing */
    c->ports = k;
    /* a port's function stays enumerated but carries no traffic once its link is down: the tag
     * spaces in use are those of the ports left (pcie.h: one function per port) */
    if (k > 0 && c->link.functions > k) { /* function q now serves the port left at q: it keeps that port's name */
      for (int q = 0; q < k; q++) c->fn_id[q] = c->port_id[q] % c->fn_named;
      c->link.functions = k;
    }
    if (!card_down[i]) ports_left += k;
  }
  int n = 0;
  if (ports_left == 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: no NIC port would be left");
    return FALSE;
  }
  for (int i = 0; i < a->n_nics; i++)
    if (!card_down[i]) a->nics[n++] = a->nics[i];
  a->n_nics = n;
  n = 0;
  for (int d = 0; d < a->n_drives; d++)
    if (!drive_down[d]) a->drives[n++] = a->drives[d];
  if (n == 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: no drive would be left");
    return FALSE;
  }
  a->n_drives = n;
  return TRUE;
}
