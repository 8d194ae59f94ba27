/* failure.h — failure what-ifs: components taken out of the box, their traffic moved the way
 * the box would move it.
 *
 * What it models: a failed drive (nvme[D]) leaves the box and the catalogue is placed again over
 * the survivors by workload.title_placement; a failed port (nics[N].ports[P]) leaves its LACP
 * bundle, which hashes connections evenly over the rest; a failed card (nics[N]) takes its ports.
 * D and N are the healthy box's indices, as in the resource names (nvmeD, nicN); survivors keep them.
 * Leaves out: the transient (re-hashing, refetching content from the origin), degraded
 * RAID reads, a box left without a drive or a port (an error).
 * Evidence and history: docs/model/failure.md.
 */
#ifndef MODELS_APPLIANCE_FAILURE_H
#define MODELS_APPLIANCE_FAILURE_H
#include "models/appliance/appliance.h"

/* Takes the components @fail names (NULL-terminated: "nvme[3]", "nics[0].ports[1]",
 * "nics[1]"; indices by healthy-box id, see above) out of @a in place; the survivors keep their ids. FALSE with a
 * G_OPTION_ERROR naming the bad entry when one is malformed, names a component the box does not have or one already down (named
 * twice, or a port together with its card), or would leave no drive or no port. */
gboolean appliance_fail(Appliance *a, const char *const *fail, GError **error);

#endif /* MODELS_APPLIANCE_FAILURE_H */
