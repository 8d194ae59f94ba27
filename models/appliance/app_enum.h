/* app_enum.h — one list per enum of the appliance model (libuv's UV_ERRNO_MAP style).
 *
 * A component header writes each enum once, as a list macro of (IDENTIFIER, "name") pairs:
 *     #define CPU_UARCH_MAP(X) X(UARCH_BROADWELL, "broadwell") X(UARCH_SKYLAKE, "skylake") ...
 *     typedef enum { CPU_UARCH_MAP(APP_ENUM_ID) UARCH_COUNT } CpuUarch;
 *     APP_ENUM_DECLARE(cpu_uarch);                           // extern const char *const cpu_uarch_names[]
 * and its .c file APP_ENUM_DEFINE(cpu_uarch, CPU_UARCH_MAP). The names array, in enum order and
 * NULL-terminated, is both what reports print and the conf's allowed values (SimConfField
 * .enum_names): sim_conf binds a name straight into a field of the enum type, so nothing is
 * cast back by position. APP_ENUM_CONF_OK asserts that such a field has the int size the
 * binder writes.
 */
#ifndef MODELS_APPLIANCE_APP_ENUM_H
#define MODELS_APPLIANCE_APP_ENUM_H
#include <glib.h>

#define APP_ENUM_ID(id, name)   id,
#define APP_ENUM_NAME(id, name) name,

/* Declares the NULL-terminated name table PREFIX_names[] of an enum list. */
#define APP_ENUM_DECLARE(prefix) extern const char *const prefix##_names[]

/* Defines PREFIX_names[] from the list macro MAP. */
#define APP_ENUM_DEFINE(prefix, MAP) const char *const prefix##_names[] = { MAP(APP_ENUM_NAME) NULL }

/* Name of value v of an enum of n values from its table; "?" out of range. */
#define APP_ENUM_NAME_OF(prefix, n, v) ((int)(v) >= 0 && (int)(v) < (n) ? prefix##_names[(int)(v)] : "?")

/* sim_conf binds SIM_CONF_T_ENUM into an int: a field of this enum type must be one. */
#define APP_ENUM_CONF_OK(Type) G_STATIC_ASSERT(sizeof(Type) == sizeof(int))

#endif /* MODELS_APPLIANCE_APP_ENUM_H */
