/* models/qnet/qnet.h — open queueing networks: the generic front end that holds the
 * engine against textbook queueing theory (scenario `kind: queueing_network`).
 *
 * What it models: renewal sources feed FCFS multi-server or processor-sharing stations with
 * probabilistic (Jackson-style) routing; per station throughput, utilisation, mean number and
 * mean response time with batch-means 95% confidence intervals after a warm-up.
 * qnet_theory(): traffic equations lambda = gamma + lambda P, rho = lambda E[S] / c; M/M/c (Erlang C),
 * M/G/1-PS W = E[S]/(1-rho), Pollaczek–Khinchine Wq = rho E[S] (1+SCV) / (2(1-rho)).
 * Sources: Jackson (1963) product form; Erlang C; Pollaczek–Khinchine.
 * Leaves out: theory outside product form (reported as absent), closed networks, priorities.
 * Evidence and history: docs/model/qnet.md.
 */
#ifndef MODELS_QNET_QNET_H
#define MODELS_QNET_QNET_H

#include <glib.h>
#include "sim/dist.h"
#include "sim/observe.h"
#include "sim/station.h"
#include "sim/time.h"

/* The most jobs a run holds at once (qnet_spec_new's default of QnetSpec.max_jobs).
 * Assumed: about 150 MB of jobs (SimJob plus a heap slot), far past the population of
 * any network near a steady state; only an overloaded network gets there, and its
 * figures depend on the run length anyway (the overloaded M/G/1-PS of `make bench`,
 * offered load 10 for 20 000 s, peaks near 2e5). */
#define QNET_MAX_JOBS 1000000

typedef struct {
  char *to;  /* station name */
  double p;  /* probability, sum over a node's routes <= 1; the rest leaves */
  int index; /* resolved station index */
} QnetRoute;

typedef struct {
  char *name;
  SimDist interarrival; /* ns */
  GArray *routes;       /* QnetRoute; sum of p == 1 */
} QnetSource;

typedef struct {
  char *name;
  SimStationDiscipline discipline;
  int servers;     /* >= 1 (FCFS) */
  int capacity;    /* most jobs inside, 0 = unlimited */
  SimDist service; /* ns */
  GArray *routes;  /* QnetRoute */
} QnetStation;

typedef struct {
  char *name;
  uint64_t seed;
  sim_time_ns duration_ns; /* total simulated time, warm-up included */
  sim_time_ns warmup_ns;
  int batches;                 /* batches after warm-up (>= 2) */
  double precision;            /* stop when every CI half-width <= precision x mean; 0 = off */
  sim_time_ns max_duration_ns; /* with precision: the longest run */
  uint64_t max_jobs;           /* most jobs present in the network at once (QNET_MAX_JOBS by default) */
  GPtrArray *sources;          /* QnetSource* */
  GPtrArray *stations;         /* QnetStation* */
  char **overrides;            /* the command-line overrides of the scenario (sim_conf_overrides), may be NULL */
} QnetSpec;

/* An estimate with its 95% half-width (NAN when unknown). */
typedef struct {
  double mean, half_width;
} QnetEstimate;

typedef struct {
  char *name;
  QnetEstimate throughput_per_s, utilization, number, response_s;
  double response_p50_s, response_p99_s;
  double drop_rate_per_s;
  double load; /* offered load rho = lambda E[S] / c from the traffic equations
                                       (NAN when they cannot be solved); >= 1: no steady state */
  /* theory (NAN where the closed forms do not hold) */
  double th_throughput_per_s, th_utilization, th_number, th_response_s;
} QnetStationResult;

typedef struct {
  char *name;
  uint64_t seed;
  double simulated_s; /* after warm-up */
  uint64_t events;
  QnetEstimate sojourn_s; /* entry to exit of the network */
  QnetEstimate exit_rate_per_s;
  int batches;
  int nstations;
  QnetStationResult *stations;
  char **overrides; /* copied from the spec */
} QnetResult;

/* A spec with the defaults of the scenario schema (models/qnet/qnet_conf.c: seed 1, 40 batches, ...)
 * and no sources or stations. (transfer full) */
QnetSpec *qnet_spec_new(void);
/* A spec with the scalar fields of *fields (the name's ownership moves: fields->name becomes
 * NULL) and empty source and station lists; what the loader binds into. (transfer full) */
QnetSpec *qnet_spec_take(QnetSpec *fields);
/* Frees a spec, its sources, stations and routes. NULL is allowed. */
void qnet_spec_free(QnetSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(QnetSpec, qnet_spec_free)

/* Adds a source / station (the spec takes ownership); returns it for routes. */
QnetSource *qnet_spec_add_source(QnetSpec *spec, const char *name, const SimDist *interarrival);
QnetStation *qnet_spec_add_station(QnetSpec *spec, const char *name, SimStationDiscipline disc, int servers, int capacity,
                                   const SimDist *service);
/* Appends a route to @to with probability @p to @routes (a source's or station's). */
void qnet_route_add(GArray *routes, const char *to, double p);

/* Resolves route names and checks probabilities, distributions and stability
 *  of nothing: an unstable network simply runs (and shows it).  Errors name
 *  the source or station. */
gboolean qnet_spec_resolve(QnetSpec *spec, GError **error);

/* Simulates @spec (resolved).  Fails (QNET_ERROR, NULL result) only when more than
 *  @spec->max_jobs jobs are in the network at once: the run then stops at once and the
 *  message names the simulated time and the most crowded station. */
QnetResult *qnet_run(const QnetSpec *spec, GError **error);
/* As qnet_run(), reporting to @obs (sim/observe.h; may be NULL) progress (simulated seconds of
 *  the duration, after the warm-up and each batch) and traces whose components are the
 *  stations by name and "jobs" (every station): info a job's departure, debug also its
 *  arrival and drop.  Same results. */
QnetResult *qnet_run_observed(const QnetSpec *spec, const SimObserver *obs, GError **error);

/* Fills the th_* fields of @res from the closed forms (see above). */
void qnet_theory(const QnetSpec *spec, QnetResult *res);

/* Frees a result, its station rows and names. NULL is allowed. */
void qnet_result_free(QnetResult *res);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(QnetResult, qnet_result_free)

typedef enum { QNET_FORMAT_TABLE, QNET_FORMAT_JSON, QNET_FORMAT_CSV } QnetFormat;

/* Appends @res to @out as a table, JSON object or CSV (one row per station). */
void qnet_result_write(const QnetResult *res, QnetFormat format, GString *out);

#endif /* MODELS_QNET_QNET_H */
