/* appliance.c — the component list's two orders (components.h) and whole-box validation. */
#include "models/appliance/appliance.h"
#include "models/appliance/components.h"

#define COUNT_ONE(name, res, check) +1
enum { N_COMPONENTS = 0 APP_COMPONENT_LIST(COUNT_ONE) };
/* Each order numbers 0..N-1 once: a number repeated fails to compile (-Woverride-init), one out of
 * range here, so neither order can lose a component. */
#define IN_RANGE(name, res, check) \
  _Static_assert((res) < N_COMPONENTS && (check) < N_COMPONENTS, #name ": order number out of 0..N-1");
APP_COMPONENT_LIST(IN_RANGE)
#define AT_RESOURCE(name, res, check) [res] = &name##_component,
#define AT_CHECK(name, res, check)    [check] = &name##_component,
/* N + 1 entries: the last, never named, is the NULL terminator. */
static const AppComponent *const RESOURCE_ORDER[N_COMPONENTS + 1] = { APP_COMPONENT_LIST(AT_RESOURCE) };
static const AppComponent *const CHECK_ORDER[N_COMPONENTS + 1] = { APP_COMPONENT_LIST(AT_CHECK) };

const AppComponent *const *app_components(void)
{
  return RESOURCE_ORDER;
}

const AppComponent *const *app_components_validation(void)
{
  return CHECK_ORDER;
}

gboolean appliance_validate(const Appliance *a, GError **error)
{
  for (const AppComponent *const *c = CHECK_ORDER; *c; c++)
    if ((*c)->validate && !(*c)->validate(a, error)) return FALSE;
  return TRUE;
}
