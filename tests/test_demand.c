/* tests/test_demand.c — the one bottleneck rule (models/appliance/demand.h demand_name_bottleneck,
 * demand_co_bottlenecks): the demand model (at X*), the bound, the report and the fit name the
 * same resource and the same co-bottlenecks on published scenarios of every bottleneck kind,
 * including the Rome software-kTLS box where the CPU binds at its cap but DRAM is named (rule (b):
 * its marginal cycles are mostly DRAM stalls, the share derived by hand here); and the
 * load-dependent sizings (user-buffer residency, auto-sized page cache) at the model's own served
 * throughput, a fixed point (demand.c). */
#include <check.h>
#include "tests/support/check_run.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/modes/explain.h"
#include "models/reference/refset.h"
#include "models/modes/report.h"

typedef struct {
  const char *file;
  ResKind kind;          /* kind of the named bottleneck */
  gboolean stall;        /* DRAM named for the CPU its stalls fill */
  int min_co;            /* at least this many co-bottlenecks */
  gboolean mostly_stall; /* the binding CPU's marginal cycles are mostly DRAM stalls (reported, names nothing) */
} Case;

static const Case cases[] = {
  { "scenarios/reference/rome2021_sw_nps1.yaml", RK_CPU, FALSE, 1, TRUE }, /* cpu.node0 at its 80 % cap, 59 % of its marginal
                                                                         cycles DRAM stalls, but 1 % more cycles buys more
                                                                         than 1 % more DRAM bandwidth: the CPU named, the
                                                                         DRAM a co-limit (published: memory) */
  { "scenarios/reference/rome2021_sw_nps4.yaml", RK_DRAM, TRUE, 1, TRUE }, /* a knife edge: the four CPU nodes reach their cap
                                                                        as the DRAM saturates. Since the refit of issue 28
                                                                        (page_cycles 2989 -> 2940, pkt_cycles 2000 -> 2800)
                                                                        the CPU binds first by 1e-4 and 1 % more DRAM
                                                                        bandwidth buys more than 1 % more clock: DRAM named
                                                                        by the upgrade rule (57 % of the marginal cycles
                                                                        stalls). Same resource, same 262.5 Gb/s */
  { "scenarios/reference/rome2022_userspace_tls.yaml", RK_CPU, FALSE, 0, FALSE }, /* CPU bound, 48 % of its marginal cycles
                                                                                 stalls */
  { "scenarios/reference/skx2019_no_silo.yaml", RK_CPU, FALSE, 1, FALSE },        /* both sockets' CPUs */
  { "scenarios/reference/bdw2016_nic_ktls.yaml", RK_NIC_PORT, FALSE, 0, FALSE },
  { "scenarios/reference/milan2022_default_bios.yaml", RK_NIC_PORT, FALSE, 1, FALSE }, /* documented deviation: DLWM widens */
  { "scenarios/reference/epyc2019_net_silo.yaml", RK_NVME, FALSE, 1, FALSE },
};

START_TEST(test_one_rule)
{
  const Case *c = &cases[_i];
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_load_file(c->file, NULL, a, &info, &e), "%s: %s", c->file, e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  int bn = -1;
  demand_saturation_Bps(m, &bn);
  ck_assert_int_ge(bn, 0);
  ck_assert_msg(m->res[bn].kind == c->kind, "%s: named %s", c->file, m->res[bn].name);
  /* a binding CPU's DRAM is named only by the 1 % upgrade rule (demand.h) */
  ck_assert(m->stall_named == c->stall);
  ck_assert(m->stall_upgrade == c->stall);
  ck_assert((m->stall_share > DEMAND_STALL_MAJORITY) == c->mostly_stall);

  /* bound (saturate): the same name, and the rule on its utilisations at X* gives it again */
  g_autoptr(BoundResult) b = bound_eval(a, m, 0);
  ck_assert_int_eq(b->bottleneck, bn);
  int stalled = -2;
  ck_assert_int_eq(demand_name_bottleneck(m, b->util, &stalled), bn);
  if (c->stall) {
    /* the CPU binds (at its cap) and is the one whose cycles the DRAM stalls fill */
    ck_assert_int_ge(stalled, 0);
    ck_assert_int_eq(m->res[stalled].kind, RK_CPU);
    ck_assert_double_eq_tol(b->util[stalled] / m->res[stalled].limit, 1.0, 1e-9);
    ck_assert(b->util[bn] < 1.0);
  } else {
    ck_assert_int_eq(stalled, -1);
  }

  /* the report on the same load: same bottleneck, stalled CPU and co-bottlenecks */
  g_autoptr(AppReport) rep = report_from_bound(a, &info, m, b);
  ck_assert_int_eq(rep->bottleneck, bn);
  ck_assert_int_eq(rep->stalled_cpu, stalled);
  if (c->stall) /* the report quotes the rule's share for the CPU it names */
    ck_assert_double_eq_tol(rep->stall_share, m->stall_share, 1e-12);
  g_autofree int *co = g_new(int, m->n_res);
  int nco = demand_co_bottlenecks(m, b->util, bn, co);
  ck_assert_int_ge(nco, c->min_co);
  ck_assert_int_eq(rep->n_co, nco);
  for (int k = 0; k < nco; k++) {
    ck_assert_int_eq(rep->co[k], co[k]);
    ck_assert_int_ne(co[k], bn);
    ck_assert(b->util[co[k]] / m->res[co[k]].limit * (1 + DEMAND_COBOTTLENECK) >= b->util[bn] / m->res[bn].limit);
  }
  if (c->stall) { /* the CPU its stalls fill is a co-bottleneck of the named DRAM node */
    gboolean listed = FALSE;
    for (int k = 0; k < nco; k++) listed = listed || co[k] == stalled;
    ck_assert(listed);
  }

  /* the fit names it too (its row of the reference set) */
  g_autoptr(AppRefSet) s = refset_load("scenarios/reference", &e);
  ck_assert_msg(s != NULL, "%s", e ? e->message : "");
  gboolean found = FALSE;
  for (int i = 0; i < refset_size(s); i++) {
    AppRefRow row;
    ck_assert(refset_eval(s, i, NULL, &row, &e));
    if (strcmp(row.file, c->file) == 0) {
      ck_assert_str_eq(row.bottleneck, m->res[bn].name);
      ck_assert_str_eq(row.kind, demand_kind_name(m->res[bn].kind));
      found = TRUE;
    }
    refset_row_clear(&row);
  }
  ck_assert(found);
  app_scenario_info_clear(&info);
  g_free(a);
}
END_TEST

START_TEST(test_rule_on_synthetic_utilisations)
{
  /* a minimal model: cpu, dram, nic port; ties go to the first in order */
  DmResource res[3] = { { .name = "cpu.node0", .kind = RK_CPU, .capacity = 1, .limit = 0.8 },
                        { .name = "dram.node0", .kind = RK_DRAM, .capacity = 1, .limit = 1 },
                        { .name = "nic0.port0", .kind = RK_NIC_PORT, .capacity = 1, .limit = 1 } };
  DemandModel m = { .n_res = 3, .res = res };
  double u[3] = { 0.8, 0.9, 0.7 }; /* cpu at its cap (1.0 of its limit), dram 0.9, nic 0.7 */
  int st = -2, co[3];
  ck_assert_int_eq(demand_name_bottleneck(&m, u, &st), 0);
  ck_assert_int_eq(st, -1);
  ck_assert_int_eq(demand_co_bottlenecks(&m, u, 0, co), 0); /* 0.9 * 1.05 < 1 */
  m.stall_named = TRUE;                                     /* DRAM stalls fill the CPU */
  ck_assert_int_eq(demand_name_bottleneck(&m, u, &st), 1);
  ck_assert_int_eq(st, 0);
  ck_assert_int_eq(demand_co_bottlenecks(&m, u, 1, co), 1); /* the CPU, above the DRAM node */
  ck_assert_int_eq(co[0], 0);
  m.stall_named = FALSE;
  u[2] = 1.0 + 0.5e-12; /* the port ties with the CPU within DEMAND_TIE: the CPU, first, binds */
  ck_assert_int_eq(demand_name_bottleneck(&m, u, NULL), 0);
  u[2] = 1.0 + 1e-9;
  ck_assert_int_eq(demand_name_bottleneck(&m, u, NULL), 2);
  double h[3] = { 0, 0, 0 };
  ck_assert_int_eq(demand_binding(3, h), 0); /* all idle: the first */
  ck_assert_int_eq(demand_binding(0, h), -1);
}
END_TEST

/* Rule (b) by hand (demand.h): one CPU with D0 = 2.0 cycles/B at idle, s0 = 0.6 of them DRAM-latency
 * stall, and p = 0.01 cycles/B per ns of queueing on a DRAM node of C = 100 GB/s carrying d = 5 B
 * per served byte, loaded latency a = 45 ns x rho, rho = x d / C. Then
 *   x D(x) = D0 x + p a d x^2 / C,   x S(x) = s0 x + p a d x^2 / C,
 * marginal: D0 + 2 p a d x / C and s0 + 2 p a d x / C. At x = 16 GB/s (rho 0.8), 2 p a d x / C =
 * 0.72: share (0.6 + 0.72) / (2.0 + 0.72) = 0.48529 (CPU named); at 18 GB/s (rho 0.9), 0.81:
 * 1.41 / 2.81 = 0.50178 (DRAM named). A fabric link's queueing (M/M/1, wait_mm1 = 10 ns, 40 GB/s
 * carrying 1 B/B, q = 0.02 cycles/B per ns) is no DRAM stall: it adds d/dx [x q W_l(x)] =
 * q b (r/(1-r) + r/(1-r)^2) to the denominator only, r = x / 40 GB/s. */
START_TEST(test_stall_share_hand_derived)
{
  DmResource res[3] = {
    { .name = "cpu.node0", .kind = RK_CPU, .capacity = 1e11, .limit = 0.8, .dram_stall = 0.6 },
    { .name = "dram.node0", .kind = RK_DRAM, .capacity = 100e9, .limit = 1, .wait_ns = mem_wait_ns },
    { .name = "upi.link0", .kind = RK_FABRIC, .capacity = 40e9, .limit = 1, .wait_mm1_ns = 10, .wait_ns = topo_link_wait_ns }
  };
  double base[3] = { 2.0, 5.0, 1.0 };
  DmLatTerm lat[2] = { { .res = 0, .dram = 1, .per_ns = 0.01 }, { .res = 0, .dram = 2, .per_ns = 0.02 } };
  mem_curve_line(&res[1].wait_curve, 45.0);
  DemandModel m = { .n_res = 3, .res = res, .base_total = base, .n_lat = 1, .lat = lat };
  ck_assert_double_eq_tol(demand_dram_stall_share(&m, 0, 16e9), 1.32 / 2.72, 1e-9);
  ck_assert_double_eq_tol(demand_dram_stall_share(&m, 0, 18e9), 1.41 / 2.81, 1e-9);
  ck_assert(demand_dram_stall_share(&m, 0, 16e9) < DEMAND_STALL_MAJORITY);
  ck_assert(demand_dram_stall_share(&m, 0, 18e9) > DEMAND_STALL_MAJORITY);
  m.n_lat = 2; /* the link's queueing only dilutes the share */
  double r = 16e9 / 40e9, link = 0.02 * 10 * (r / (1 - r) + r / ((1 - r) * (1 - r)));
  ck_assert_double_eq_tol(demand_dram_stall_share(&m, 0, 16e9), 1.32 / (2.72 + link), 1e-7);
  ck_assert(demand_dram_stall_share(&m, 1, 16e9) == 0.0); /* a DRAM node stalls on nothing */
  ck_assert(demand_dram_stall_share(&m, 0, 0) == 0.0);
}
END_TEST

/* The same share from `ocasim explain`'s breakdown of rome2021_sw_nps1 (one node; the DRAM's
 * loaded latency made a line through 0, memory.load_latency, so the queueing part Q of the cycles
 * doubles at the margin): share = (idle stalls + 2 Q) / (total + Q). Explain takes the stalls
 * apart by zeroing k_dram and k_remote, an independent path to the same figure. */
START_TEST(test_stall_share_from_explain)
{
  const char *file = "scenarios/reference/rome2021_sw_nps1.yaml";
  Appliance *a = g_new0(Appliance, 1);
  AppScenarioInfo info = { 0 };
  g_autoptr(GError) e = NULL;
  const char *line[] = { "memory.load_latency=45 ns", NULL }; /* linear, as the identity needs */
  ck_assert_msg(appliance_load_file(file, line, a, &info, &e), "%s", e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert(m != NULL);
  g_autoptr(Explain) x = explain_build(a, &info, m);
  double idle = x->cpb[EX_STALL_DRAM], q = x->cpb[EX_STALL_QUEUE];
  ck_assert(q > 0 && idle > 0 && x->cpb[EX_STALL_FABRIC] == 0);
  ck_assert_double_eq_tol(m->stall_share, (idle + 2 * q) / (x->cpb_total + q), 1e-6);
  ck_assert(m->stall_share > DEMAND_STALL_MAJORITY && !m->stall_named); /* mostly stalls, yet the CPU is named: below */
  app_scenario_info_clear(&info);
  g_free(a);
}
END_TEST

/* Scenarios whose demand depends on the served throughput: read/write rows whose reused user
 * buffer is partly cache resident (CPU bound), and the page-cache what-if made drive bound
 * (1 GB/s drives), whose auto-sized cache shrinks as the connections grow. */
typedef struct {
  const char *file;
  const char *sets[6];
} SizingCase;

static const SizingCase sizing_cases[] = {
  { "scenarios/reference/bdw2016_userspace_tls.yaml", { NULL } },
  { "scenarios/reference/rome2022_userspace_tls.yaml", { NULL } },
  { "scenarios/reference/rome2022_no_sendfile_sw_ktls.yaml", { NULL } },
  { "scenarios/rome-400g-page-cache.yaml",
    { "nvme[0].read=1 GB/s", "nvme[1].read=1 GB/s", "nvme[2].read=1 GB/s", "nvme[3].read=1 GB/s", NULL } },
};

static Appliance *load_sets(const char *file, const char *const *sets, const char *extra)
{
  const char *all[8];
  int n = 0;
  for (; sets[n]; n++) all[n] = sets[n];
  all[n++] = extra;
  all[n] = NULL;
  Appliance *a = g_new0(Appliance, 1);
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_load_file(file, all, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  return a;
}

static double op_sized(const Appliance *a, const DemandModel *m, double x)
{
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) mx = demand_build_sized(a, m->drive_share, x, &e);
  ck_assert_msg(mx != NULL, "%s", e ? e->message : "");
  ck_assert_double_eq(mx->sized_Bps, x);
  return mx->op_Bps;
}

/* The served throughput x the sizings assume is the one the model serves: F(x) = x, F(x) =
 * min(offered, X*) of the model sized at x (demand_build_sized); F is non-increasing, so F(x -
 * 1e-8 x) > x - 1e-8 x and F(x + 1e-8 x) < x + 1e-8 x bracket the one root within 1e-8. Not
 * vacuous: sizing at 0 connections (all buffers resident, the whole RAM to the cache) serves more
 * on every case. */
START_TEST(test_sizing_fixed_point)
{
  const SizingCase *c = &sizing_cases[_i];
  g_autofree Appliance *a = load_sets(c->file, c->sets, NULL);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  double x = m->sized_Bps, d = 1e-8;
  ck_assert_msg(fabs(m->op_Bps - x) <= 1e-10 * x, "%s: serves %.12g B/s, sized at %.12g", c->file, m->op_Bps, x);
  double lo = op_sized(a, m, x * (1 - d)), hi = op_sized(a, m, x * (1 + d));
  ck_assert_msg(lo > x * (1 - d) && hi < x * (1 + d), "%s: F(x -+ %g x) = x (1 %+.3g), x (1 %+.3g)", c->file, d, lo / x - 1,
                hi / x - 1);
  ck_assert(lo >= hi);
  double at0 = op_sized(a, m, 0);
  ck_assert_msg(at0 > x * (1 + 1e-9), "%s: the sizing does not matter here (F(0) = x (1 %+.3g))", c->file, at0 / x - 1);
  printf("demand: sizing fixed point %-50s %9.4f Gb/s (F(0) %+.2e relative)\n", c->file, x * 8e-9, at0 / x - 1);
}
END_TEST

/* A port that does not bind changes nothing when it gets faster: the connection count follows
 * the served throughput, not the line rate. Before, on these rows a 4x port lowered X by up to
 * 4e-7 relative (a faster port assumed more connections, so a higher miss share) and a cache
 * sized at line rate held fewer titles. */
START_TEST(test_sizing_ignores_line_rate)
{
  const SizingCase *c = &sizing_cases[_i];
  g_autofree Appliance *a = load_sets(c->file, c->sets, NULL);
  g_autofree char *fast = g_strdup_printf("nics[0].port_speed=%.17g b/s", a->nics[0].port_bps * 4);
  g_autofree Appliance *b = load_sets(c->file, c->sets, fast);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) ma = demand_build(a, &e);
  g_autoptr(DemandModel) mb = demand_build(b, &e);
  ck_assert(ma && mb);
  ck_assert_msg(fabs(mb->op_Bps / ma->op_Bps - 1) <= 1e-10, "%s: %s moved X from %.12g to %.12g Gb/s", c->file, fast,
                ma->op_Bps * 8e-9, mb->op_Bps * 8e-9);
}
END_TEST

/* The capacity load is not an overload: a load-dependent model re-solved at an offered load equal
 * to its own X* (the capacity command runs there) lands within the solvers' precision of it, on
 * either side, and is not reported as offering more than the box serves; 1e-6 above it is. */
START_TEST(test_capacity_load_not_overloaded)
{
  const SizingCase *c = &sizing_cases[_i];
  g_autofree Appliance *a = load_sets(c->file, c->sets, NULL);
  g_autoptr(GError) e = NULL;
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s", e ? e->message : "");
  g_autofree char *at = g_strdup_printf("workload.offered=%.17g b/s", m->sat_Bps * 8);
  g_autofree Appliance *b = load_sets(c->file, c->sets, at);
  g_autoptr(DemandModel) mb = demand_build(b, &e);
  ck_assert_msg(mb != NULL, "%s", e ? e->message : "");
  ck_assert_msg(fabs(mb->sat_Bps / m->sat_Bps - 1) <= 1e-10, "%s: X* %.17g vs %.17g", c->file, mb->sat_Bps, m->sat_Bps);
  ck_assert(!demand_overloaded(b->wl.offered_gbps * 1e9 / 8, mb->sat_Bps));
  ck_assert(demand_overloaded(mb->sat_Bps * (1 + 1e-6), mb->sat_Bps));
  ck_assert(!demand_overloaded(mb->sat_Bps * (1 + 1e-12), mb->sat_Bps));
}
END_TEST

/* X* of @file under @sets plus one raise @raise (Gb/s); the kind of its named bottleneck in *kind
 * (may be NULL). */
static double x_star_gbps(const char *file, const char *const *sets, const char *raise, const char *held, ResKind *kind)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new();
  for (; sets && *sets; sets++) g_ptr_array_add(all, (char *)*sets);
  if (raise) g_ptr_array_add(all, (char *)raise);
  if (held) g_ptr_array_add(all, (char *)held);
  g_ptr_array_add(all, NULL);
  Appliance *a = g_new0(Appliance, 1);
  g_autoptr(GError) e = NULL;
  ck_assert_msg(appliance_load_file(file, (const char *const *)all->pdata, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  g_autoptr(DemandModel) m = demand_build(a, &e);
  ck_assert_msg(m != NULL, "%s: %s", file, e ? e->message : "");
  int bn = -1;
  double x = demand_saturation_Bps(m, &bn) * 8e-9;
  if (kind) *kind = m->res[bn].kind;
  g_free(a);
  return x;
}

/* The README's rule, as a property over every appliance scenario of scenarios/reference/ and
 * scenarios/ (issue 33, defect 10): on a box whose CPU binds, the named bottleneck is the one of
 * CPU and DRAM whose 1 % raise buys more throughput: 1 % more clock (cpu.clock) against 1 % more
 * memory bandwidth (memory.speed, the DDR generation held). On the CPU-bound software-kTLS boxes
 * "dram" was named at 53-69 % DRAM use while 1 % more memory bandwidth bought 0.11 % against
 * 0.45 % for 1 % more clock. */
START_TEST(test_named_bottleneck_is_best_upgrade)
{
  const char *dirs[] = { "scenarios/reference", "scenarios" };
  guint checked = 0, cpu_named = 0;
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d], 0, NULL);
    ck_assert(dir != NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(dir));)
      if (g_str_has_suffix(n, ".yaml")) g_ptr_array_add(names, g_build_filename(dirs[d], n, NULL));
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    for (guint i = 0; i < names->len; i++) {
      const char *file = g_ptr_array_index(names, i);
      Appliance *a = g_new0(Appliance, 1);
      g_autoptr(GError) e = NULL;
      if (!appliance_load_file(file, NULL, a, NULL, &e)) { /* a queueing network, or a what-if refused */
        g_free(a);
        continue;
      }
      g_autoptr(DemandModel) m = demand_build(a, NULL);
      int bn = -1;
      if (!m || (demand_saturation_Bps(m, &bn), bn < 0) || !(m->res[bn].kind == RK_CPU || m->stall_named)) {
        g_free(a);
        continue;
      }
      g_autofree char *clock = g_strdup_printf("cpu.clock=%.17g Hz", a->cpu.clock_hz * 1.01);
      g_autofree char *speed = g_strdup_printf("memory.speed=%.17g T/s", a->mem.speed_tps * 1.01);
      g_autofree char *type = g_strdup_printf("memory.type=%s", mem_type_names[a->mem.type]);
      ResKind kind;
      double x0 = x_star_gbps(file, NULL, NULL, NULL, &kind);
      double cpu_gain = x_star_gbps(file, NULL, clock, NULL, NULL) / x0 - 1;
      double dram_gain = x_star_gbps(file, NULL, speed, type, NULL) / x0 - 1;
      printf("demand: %-60s named %-5s 1 %% clock +%.3f %%, 1 %% DRAM +%.3f %%\n", file, demand_kind_name(kind), 100 * cpu_gain,
             100 * dram_gain);
      ck_assert_msg(kind == RK_CPU || kind == RK_DRAM, "%s", file);
      ck_assert_msg(kind == RK_CPU ? cpu_gain >= dram_gain : dram_gain >= cpu_gain,
                    "%s: named %s, but 1 %% more clock buys %.3f %% and 1 %% more DRAM bandwidth %.3f %%", file,
                    demand_kind_name(kind), 100 * cpu_gain, 100 * dram_gain);
      checked++;
      cpu_named += kind == RK_CPU;
      g_free(a);
    }
  }
  /* the software-kTLS boxes of the set, and their what-ifs */
  ck_assert_uint_ge(checked, 8);
  ck_assert_uint_ge(cpu_named, 6);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("demand");
  TCase *tc = tcase_create("bottleneck");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_one_rule, 0, (int)G_N_ELEMENTS(cases));
  tcase_add_test(tc, test_rule_on_synthetic_utilisations);
  tcase_add_test(tc, test_stall_share_hand_derived);
  tcase_add_test(tc, test_stall_share_from_explain);
  tcase_add_test(tc, test_named_bottleneck_is_best_upgrade);
  tcase_add_loop_test(tc, test_sizing_fixed_point, 0, (int)G_N_ELEMENTS(sizing_cases));
  tcase_add_loop_test(tc, test_sizing_ignores_line_rate, 0, (int)G_N_ELEMENTS(sizing_cases));
  tcase_add_loop_test(tc, test_capacity_load_not_overloaded, 0, (int)G_N_ELEMENTS(sizing_cases));
  suite_add_tcase(s, tc);
  return test_run_suite(s);
}
