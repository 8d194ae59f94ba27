/* failure.c — failure what-ifs (see failure.h). */
#include "models/failure.h"
#include <stdio.h>
#include <string.h>

typedef enum { FAIL_DRIVE, FAIL_CARD, FAIL_PORT } FailKind;

typedef struct {
  FailKind kind;
  int index, port;
} Fail;

/* Parses one entry; FALSE with an error naming it. */
static gboolean parse_one(const Appliance *a, const char *s, Fail *out, GError **error)
{
  int i = -1, p = -1, n = 0;
  if (sscanf(s, "nvme[%d]%n", &i, &n) == 1 && s[n] == '\0') {
    if (i < 0 || i >= a->n_drives) goto range;
    *out = (Fail){ FAIL_DRIVE, i, -1 };
    return TRUE;
  }
  n = 0;
  if (sscanf(s, "nics[%d].ports[%d]%n", &i, &p, &n) == 2 && s[n] == '\0') {
    if (i < 0 || i >= a->n_nics) goto range;
    if (p < 0 || p >= a->nics[i].ports) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': nic%d has %d port%s", s, i, a->nics[i].ports,
                  a->nics[i].ports == 1 ? "" : "s");
      return FALSE;
    }
    *out = (Fail){ FAIL_PORT, i, p };
    return TRUE;
  }
  n = 0;
  if (sscanf(s, "nics[%d]%n", &i, &n) == 1 && s[n] == '\0') {
    if (i < 0 || i >= a->n_nics) goto range;
    *out = (Fail){ FAIL_CARD, i, -1 };
    return TRUE;
  }
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "--fail: '%s': give nvme[D], nics[N] or nics[N].ports[P] (indices as in the resource names nvmeD, nicN.portP)", s);
  return FALSE;
range:
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--fail: '%s': the box has %d drive%s and %d NIC%s", s,
              a->n_drives, a->n_drives == 1 ? "" : "s", a->n_nics, a->n_nics == 1 ? "" : "s");
  return FALSE;
}

gboolean appliance_fail(Appliance *a, const char *const *fail, GError **error)
{
  gboolean drive_down[APP_MAX_DRIVES] = { FALSE }, card_down[APP_MAX_NICS] = { FALSE };
  gboolean port_down[APP_MAX_NICS][NIC_MAX_PORTS] = { { FALSE } };
  for (const char *const *f = fail; f && *f; f++) {
    Fail x;
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
  /* ports first (by the healthy card's numbering), then whole cards and drives */
  int ports_left = 0;
  for (int i = 0; i < a->n_nics; i++) {
    NicCard *c = &a->nics[i];
    int k = 0;
    for (int p = 0; p < c->ports; p++)
      if (!port_down[i][p]) c->domain[k++] = c->domain[p];
    if (k == 0) card_down[i] = TRUE; /* every port down: the card carries nothing */
    c->ports = k;
    /* a port's function stays enumerated but carries no traffic once its link is down: the tag
     * spaces in use are those of the ports left (pcie.h: one function per port) */
    if (k > 0 && c->link.functions > k) c->link.functions = k;
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
