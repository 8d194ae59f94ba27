/* models/qnet/qnet_conf.h — reads a `kind: queueing_network` scenario (see scenarios/README.md). */
#ifndef MODELS_QNET_QNET_CONF_H
#define MODELS_QNET_QNET_CONF_H

#include "models/qnet/qnet.h"
#include "sim/conf.h"

/* Builds a resolved QnetSpec from the root map of a scenario document.
 *  Errors are SIM_CONF_ERROR with FILE:LINE:COL: key.path positions.
 *  Returns: (transfer full) the spec, or NULL. */
QnetSpec *qnet_spec_from_conf(const SimConfNode *root, GError **error);

/* The scenario schema, for documentation (sim_conf_schema_markdown). */
extern const SimConfField qnet_conf_schema[];

#endif /* MODELS_QNET_QNET_CONF_H */
