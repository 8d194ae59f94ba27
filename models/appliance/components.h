/* components.h — the component list: every part of the appliance, one line each. Adding a component
 * adds its .c/.h (component.h's hooks, NAME_component), its test, one line here, and its header's
 * #include (with its settings' field, if any) in the aggregate, appliance.h.
 * The lines' order is the scenario's root schema order (each component's NAME_conf_sections rows).
 * The two columns are its place in the resource order (the order of the model's resources and of
 * every build hook: demand.c) and in the check order (the loader's finish and validate: the
 * platform before the devices on it, the software last). Each column numbers 0..N-1 once.
 * Leaves out: nothing else names a component (scripts/check-where-to-add.py holds that).
 */
#ifndef MODELS_APPLIANCE_COMPONENTS_H
#define MODELS_APPLIANCE_COMPONENTS_H
#include "models/appliance/component.h"

/* X(name, resource order, check order) */
#define APP_COMPONENT_LIST(X) \
  X(cpu, 0, 2)                \
  X(topology, 3, 0)           \
  X(memory, 1, 1)             \
  X(nvme, 4, 3)               \
  X(nic, 5, 4)                \
  X(software, 6, 7)           \
  X(workload, 7, 5)           \
  X(pagecache, 8, 8)          \
  X(budget, 9, 9)             \
  X(loopback, 2, 6)           \
  /* end of the list: every line above ends in a backslash */
#define APP_COMPONENT_EXTERN(name, res, check) extern const AppComponent name##_component;
APP_COMPONENT_LIST(APP_COMPONENT_EXTERN)
#undef APP_COMPONENT_EXTERN

/* The components in resource order, NULL-terminated. */
const AppComponent *const *app_components(void);
/* The components in check order, NULL-terminated. */
const AppComponent *const *app_components_validation(void);

#endif /* MODELS_APPLIANCE_COMPONENTS_H */
