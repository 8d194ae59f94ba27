/* sim/observe.h — what a caller may watch of a long run without changing its results.
 *
 * Progress: the run calls a sim_progress_fn with the simulated time done and the total
 * (seconds), a few hundred times at most, from the thread that runs it.
 * Traces: a filter of component names with a level (SimGrid's --log=cat.thres:debug, ns-3's
 * NS_LOG), e.g. "nvme0:debug,requests:info".  A run logs the events of the components the
 * filter names through GLib structured logging in its folder's log domain, with the field
 * OCASIM_TRACE=<component> (the command line's log writer shows such messages).  What a
 * component is belongs to the run: the fluid simulation's resources and classes
 * (sim/fluid.h), the queueing network's stations (models/qnet/qnet.h).
 * Both cost one test of a flag per event when off.  Nothing here is global: a filter is a
 * value the caller owns and hands to each run, so concurrent runs never share state.
 */
#ifndef SIM_OBSERVE_H
#define SIM_OBSERVE_H

#include <glib.h>

/* Progress callback: @done of @total (same unit, simulated seconds for a run; @total > 0). */
typedef void (*sim_progress_fn)(double done, double total, void *ctx);

/* Levels of a trace: info logs one line per completed piece of work (a request, a job's
 *  departure), debug every event. */
typedef enum { SIM_TRACE_OFF = 0, SIM_TRACE_INFO = 1, SIM_TRACE_DEBUG = 2 } SimTraceLevel;

/* A trace filter: component names, each with its level. */
typedef struct SimTrace SimTrace;

/* Parses @spec, "NAME[:LEVEL][,NAME[:LEVEL]...]" with LEVEL info or debug (default debug);
 *  NAME "all" matches every component.  Errors (G_OPTION_ERROR_BAD_VALUE): an empty name, an
 *  unknown level; the message quotes the item.  Returns: (transfer full). */
SimTrace *sim_trace_parse(const char *spec, GError **error);

/* Adds the items of @spec (as sim_trace_parse() reads them) to @t. */
gboolean sim_trace_add(SimTrace *t, const char *spec, GError **error);

/* Checks that every name of @t other than "all" is one of @known (NULL-terminated: the
 *  components of the run that will use @t).  Error (G_OPTION_ERROR_BAD_VALUE): the first name
 *  that is not, with the nearest known name as a suggestion (sim_conf_suggest) and the list. */
gboolean sim_trace_check(const SimTrace *t, const char *const *known, GError **error);

/* Frees @t (NULL is ignored). */
void sim_trace_free(SimTrace *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimTrace, sim_trace_free)

/* The level at which @component is traced by @t (the highest of the items naming it or
 *  "all"); SIM_TRACE_OFF when @t is NULL or names neither. */
SimTraceLevel sim_trace_level(const SimTrace *t, const char *component);

/* What a run reports to its caller; every member may be NULL. */
typedef struct {
  sim_progress_fn progress;
  void *progress_ctx;
  const SimTrace *trace;
} SimObserver;

/* Calls @o's progress callback, if any, with @done of @total. */
static inline void sim_observer_progress(const SimObserver *o, double done, double total)
{
  if (o && o->progress) o->progress(done, total, o->progress_ctx);
}

/* Logs one trace line of @component at @level (call it only when the component is traced at
 *  that level: the test of the flag is the caller's, so that a run without traces formats
 *  nothing).  @domain is the caller's G_LOG_DOMAIN. */
#define SIM_TRACE_LOG(domain, component, level, ...)                                                                         \
  g_log_structured((domain), (level) >= SIM_TRACE_DEBUG ? G_LOG_LEVEL_DEBUG : G_LOG_LEVEL_INFO, "OCASIM_TRACE", (component), \
                   "MESSAGE", __VA_ARGS__)

#endif /* SIM_OBSERVE_H */
