/* sim/station.h — queueing stations: FCFS multi-server and processor sharing.
 *
 * What it models: a job (SimJob) visits stations; the departure callback says where it goes next.
 *   FCFS   c identical servers, one FIFO queue, optional capacity K (arrivals to a full station drop)
 *   PS     one server of rate 1 shared equally by the n jobs present, by virtual time: V(t) grows
 *          at rate 1/n and a job arriving at V_a with work x leaves at V_a + x (min-heap of tags)
 * Service from the station's distribution (ns) or job->work_ns. Statistics: number in system,
 * busy servers, response and waiting times (p50..p99.9), departures, arrivals, drops.
 * It leaves out: priorities, preemption, server vacations, service rates that
 * vary with load.
 * Evidence and history: docs/model/station.md.
 */
#ifndef SIM_STATION_H
#define SIM_STATION_H

#include <gsl/gsl_rng.h>
#include "sim/dist.h"
#include "sim/engine.h"
#include "sim/stats.h"

typedef struct SimJob SimJob;
typedef struct SimStation SimStation;

struct SimJob {
  SimEvent ev;  /* service completion (FCFS); owned by the station while in service */
  SimJob *next; /* FIFO queue link */
  uint64_t id;
  sim_time_ns t_created; /* entered the network */
  sim_time_ns t_arrived; /* entered the current station */
  sim_time_ns t_started; /* began service at the current station (FCFS) */
  double work_ns;        /* service demand at the current station */
  double ps_finish;      /* PS: virtual finish tag */
  uint64_t ps_seq;       /* PS: arrival order at the station (breaks ties of tags) */
  uint32_t ps_pos;       /* PS: index in the station's heap */
  int klass;             /* free for the caller */
  void *data;            /* free for the caller */
};

typedef enum { SIM_STATION_FCFS, SIM_STATION_PS } SimStationDiscipline;

/* Called when @job leaves @st (served or dropped); the callee owns @job again. */
typedef void (*sim_station_job_fn)(SimStation *st, SimJob *job, void *ctx);

struct SimStation {
  char *name;
  SimStationDiscipline disc;
  int servers;     /* c (FCFS); 1 for PS */
  int capacity;    /* K, 0 = unlimited */
  SimDist service; /* used when has_service */
  bool has_service;
  gsl_rng *rng; /* owned, seeded from (seed, name) */
  SimEngine *eng;
  sim_station_job_fn on_depart, on_drop;
  void *ctx;
  /* state */
  int in_system, busy;
  SimJob *q_head, *q_tail;
  SimJob **ps_heap; /* PS: jobs present, a min-heap on (ps_finish, ps_seq) */
  uint32_t ps_n, ps_cap;
  uint64_t ps_seq_next;
  GPtrArray *ps_done; /* PS: scratch for the jobs leaving at one instant */
  double ps_vtime;    /* PS: virtual time at ps_vtime_at */
  sim_time_ns ps_vtime_at;
  SimEvent ps_ev; /* PS: next completion */
  /* statistics (owned by the SimStats set given at creation) */
  SimStat *st_number, *st_busy, *st_response_s, *st_wait_s, *st_waited, *st_departures, *st_arrivals, *st_drops;
};

/* Creates a station named @name (copied) on @eng whose statistics go into
 *  @stats as "<name>.number", "<name>.busy", "<name>.response_s", "<name>.wait_s",
 *  "<name>.departures", "<name>.arrivals", "<name>.drops".  @service may be
 *  NULL (demand from job->work_ns).  "<name>.waited" is a tally of 1 (the job
 *  queued before service) or 0, so its mean is the waiting probability (FCFS).  @servers >= 1 (FCFS), @capacity >= 0.
 *  Its RNG stream is sim_rng_new(@seed, @name). */
SimStation *sim_station_new(SimEngine *eng, SimStats *stats, const char *name, SimStationDiscipline disc, int servers,
                            int capacity, const SimDist *service, uint64_t seed, sim_station_job_fn on_depart,
                            sim_station_job_fn on_drop, void *ctx);

/* Frees @st without touching its engine (free them in either order; the
 *  engine must not run again).  Jobs still inside belong to the caller. */
void sim_station_free(SimStation *st);

/* @job arrives at @st now. */
void sim_station_arrive(SimStation *st, SimJob *job);

#endif /* SIM_STATION_H */
