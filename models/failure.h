/* failure.h — failure what-ifs: components taken out of the box, their traffic moved the way
 * the box would move it.
 *
 * What it models: a failed drive (nvme[D], D the drive's index as in the resource name nvmeD)
 * leaves the box and the catalogue is placed again over the surviving drives by
 * workload.title_placement (node_striped: nodes weighted by their surviving drives; so a node
 * that lost a drive holds fewer titles, in proportion, and its turns in the Zipf head thin out with
 * its weight), as a box refilled from the origin would hold it. A
 * failed NIC port (nics[N].ports[P], N the card's index as in nicN) leaves its LACP bundle: the
 * bundle hashes connections evenly over the remaining ports (demand.c), and the card keeps its PCIe
 * link and TLS engine. A failed card (nics[N]) takes its ports with it.
 * The failures name the healthy box's indices; several are taken out together. D and N count
 * drives and cards one by one as the resource names do, not the scenario's groups: a group with
 * count k gives k consecutive indices (nics: [{count: 2}, {...}] is nic0, nic1 from nics[0] and nic2
 * from nics[1]); an index the box lacks is an error listing the names by group.
 * Names: the survivors keep their healthy-box ids (NvmeDrive.id, NicCard.id, .port_id, .fn_id), so
 * their resources keep their names in the degraded report (nics[0] down: the card left is still
 * nic1.port0; nvme[3] down: nvme4 is still nvme4, and no nvme3 remains).
 * Leaves out: the transient (re-hashing, refetching content from the origin), degraded
 * RAID reads, a box left without a drive or a port (an error).
 */
#ifndef MODELS_FAILURE_H
#define MODELS_FAILURE_H
#include "models/appliance.h"

/* Takes the components @fail names (NULL-terminated: "nvme[3]", "nics[0].ports[1]",
 * "nics[1]"; indices by healthy-box id, see above) out of @a in place; the survivors keep their ids. FALSE with a G_OPTION_ERROR naming the bad entry when one is
 * malformed, names a component the box does not have or one already down (named twice, or a port
 * together with its card), or would leave no drive or no port. */
gboolean appliance_fail(Appliance *a, const char *const *fail, GError **error);

#endif /* MODELS_FAILURE_H */
