// bench/ns3_hold.cc — the same hold model (bench/hold.h) on ns-3's schedulers.
//
// Like ns-3's own utils/bench-scheduler.cc, it drives ns3::Scheduler
// implementations directly through Insert / RemoveNext with
// Scheduler::Event { impl, key { m_ts, m_uid, m_context } }; impl is null
// since no event runs.  Rows:
//   ns3-map       ns3::MapScheduler, ns-3's default (std::map);
//   ns3-heap      ns3::HeapScheduler (binary heap);
//   ns3-calendar  ns3::CalendarScheduler;
//   ns3-pq        ns3::PriorityQueueScheduler (std::priority_queue);
//   ns3-sim-map   the full ns3::Simulator path with the default scheduler:
//                 Simulator::Schedule of a function that reschedules itself
//                 (allocates one EventImpl per event), counterpart of the
//                 ocasim-engine row.
// ListScheduler is left out: O(n) insert, hours at 1e6.
// Same fill / warm-up / timed-chunk protocol and checksum as bench_calendar.c.
// Built with g++ -O2 against Debian's libns3-core (whatever optimisation
// Debian built the library with; the driver prints ns-3's build profile).
#include <ns3/calendar-scheduler.h>
#include <ns3/core-module.h>
#include <ns3/heap-scheduler.h>
#include <ns3/map-scheduler.h>
#include <ns3/priority-queue-scheduler.h>
#include <ns3/scheduler.h>

#include "bench/hold.h"

#include <vector>

using namespace ns3;

static void
BenchScheduler(Ptr<Scheduler> sched, const uint32_t* incr, long n, double seconds, hold_timer* tm, uint64_t* check)
{
    uint64_t k = 0;
    uint32_t uid = 0;
    Scheduler::Event ev;
    ev.impl = nullptr;
    ev.key.m_context = 0;
    for (long i = 0; i < n; i++)
    {
        ev.key.m_ts = incr[k++ & HOLD_TABLE_MASK];
        ev.key.m_uid = uid++;
        sched->Insert(ev);
    }
    for (long i = 0; i < hold_warmup(n); i++)
    {
        Scheduler::Event e = sched->RemoveNext();
        e.key.m_ts += incr[k++ & HOLD_TABLE_MASK];
        e.key.m_uid = uid++;
        sched->Insert(e);
    }
    uint64_t sum = 0;
    hold_timer_start(tm, seconds);
    do
    {
        for (unsigned c = 0; c < HOLD_CHUNK; c++)
        {
            Scheduler::Event e = sched->RemoveNext();
            sum += e.key.m_ts;
            e.key.m_ts += incr[k++ & HOLD_TABLE_MASK];
            e.key.m_uid = uid++;
            sched->Insert(e);
        }
        if (tm->ops + HOLD_CHUNK == HOLD_CHECK_OPS)
        {
            *check = sum;
        }
    } while (hold_timer_chunk(tm));
    while (!sched->IsEmpty())
    {
        sched->RemoveNext();
    }
}

// Full Simulator path: one static state, the handler reschedules itself.
static struct
{
    const uint32_t* incr;
    uint64_t k;
    uint64_t left;
    uint64_t sum;
} g_sim;

static void
OnHold()
{
    g_sim.sum += Simulator::Now().GetTimeStep();
    Simulator::Schedule(NanoSeconds(g_sim.incr[g_sim.k++ & HOLD_TABLE_MASK]), &OnHold);
    if (--g_sim.left == 0)
    {
        Simulator::Stop();
    }
}

static void
BenchSimulator(const uint32_t* incr, long n, double seconds, hold_timer* tm, uint64_t* check)
{
    ObjectFactory f;
    f.SetTypeId("ns3::MapScheduler");
    Simulator::SetScheduler(f);
    g_sim.incr = incr;
    g_sim.k = 0;
    for (long i = 0; i < n; i++)
    {
        Simulator::Schedule(NanoSeconds(incr[g_sim.k++ & HOLD_TABLE_MASK]), &OnHold);
    }
    g_sim.left = hold_warmup(n);
    Simulator::Run();
    g_sim.sum = 0;
    hold_timer_start(tm, seconds);
    do
    {
        g_sim.left = HOLD_CHUNK;
        Simulator::Run();
        if (tm->ops + HOLD_CHUNK == HOLD_CHECK_OPS)
        {
            *check = g_sim.sum;
        }
    } while (hold_timer_chunk(tm));
    Simulator::Destroy();
}

int
main(int argc, char** argv)
{
    hold_args a;
    int rc = hold_parse_args(argc, argv, &a);
    if (rc)
    {
        return rc;
    }
    printf("INFO ns-3 %s, build profile %s\n",
           Version::VersionTag().c_str(),
           Version::BuildProfile().c_str());
    std::vector<uint32_t> incr(HOLD_TABLE_LEN);
    hold_fill_table(incr.data(), a.dist, 1);
    for (int s = 0; s < a.n_sizes; s++)
    {
        long n = a.sizes[s];
        hold_timer tm;
        uint64_t check = 0;
        // Above --max-n only the priority queue runs: it is ns-3's fastest scheduler
        // at every size measured (bench/README.md) and fills 1e7 events in seconds,
        // while std::map at 1e7 costs minutes and the heap is slower than the queue.
        bool big = a.max_n && n > a.max_n;
        if (big)
        {
            printf("NOTE ns-3 Map, Heap and Sim rows skipped at N=%ld (above --max-n %ld, "
                   "BENCH_NS3_MAX_N); PQ runs\n",
                   n,
                   a.max_n);
        }
        else
        {
            BenchScheduler(CreateObject<MapScheduler>(), incr.data(), n, a.seconds, &tm, &check);
            hold_report("ns3-map", n, &tm, check);
        }
        // Above 1e6 the heap does not run: filling it and the 2^21 warm-up holds at
        // 1e7 take ~1 M holds/s or less; the priority queue is faster at every size.
        if (!big && n <= 1000000)
        {
            BenchScheduler(CreateObject<HeapScheduler>(), incr.data(), n, a.seconds, &tm, &check);
            hold_report("ns3-heap", n, &tm, check);
        }
        BenchScheduler(CreateObject<PriorityQueueScheduler>(), incr.data(), n, a.seconds, &tm, &check);
        hold_report("ns3-pq", n, &tm, check);
        // CalendarScheduler degenerates on this workload as N grows (measured
        // 0.63 M holds/s at 1e5 and 17 k holds/s at 1e6, a minute per run).
        // With --ties it collapses already at 1e4 (0.12 M holds/s, 11 s per row).
        if (n <= (a.dist == HOLD_TIES ? 1000 : 100000))
        {
            BenchScheduler(CreateObject<CalendarScheduler>(), incr.data(), n, a.seconds, &tm, &check);
            hold_report("ns3-calendar", n, &tm, check);
        }
        if (!a.cal_only && !big && n <= 1000000)
        {
            BenchSimulator(incr.data(), n, a.seconds, &tm, &check);
            hold_report("ns3-sim-map", n, &tm, check);
        }
    }
    return 0;
}
