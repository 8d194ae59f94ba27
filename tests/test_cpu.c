/* tests/test_cpu.c — CPU cost in units that transfer (models/appliance/cpu.h): capacity from physical
 * cores x sustained clock x SMT yield, the sourced crypto table and its errors, the stack's
 * per-segment, per-interrupt, per-ACK and per-page rates, and the data paths whose crypto and
 * byte movement combine (models/appliance/datapath.h), each against a figure derived by hand from its
 * sourced inputs. */
#include <check.h>
#include "tests/support/check_run.h"
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "models/appliance/software.h"
#include "models/appliance/loader.h"
#include "models/appliance/component.h"
#include "models/appliance/demand.h"

static Appliance *load(const char *file, const char *const *sets)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert_msg(appliance_load_file(file, sets, a, NULL, &e), "%s: %s", file, e ? e->message : "");
  return a;
}

/* Sum over the CPU nodes of the total demand per served byte (cycles/B). */
static double cpu_cycles_per_byte(const DemandModel *m)
{
  double s = 0;
  for (int r = 0; r < m->n_res; r++)
    if (m->res[r].kind == RK_CPU) s += m->base_total[r];
  return s;
}

/* The Altra Q80-30 with software kTLS, derived by hand from its sourced inputs: 80 cores at the
 * fixed 3.0 GHz (Ampere), one thread per core (SMT yield 1.0), the kernel's ARMv8 AES-GCM at
 * 2.7 cycles/byte (FreeBSD armv8crypto's per-block AES and GHASH calls, derived from Neoverse N1
 * latencies, cpu.c; its range 1.5-3.8 brackets it), 16 KiB pages, the workload's request and
 * connection cycles (workload.c's sourced defaults). Stalls are switched off
 * (k_* = 0) so that the demand model's cycles per byte are the non-stall costs alone. */
START_TEST(test_altra_sw_ktls_by_hand)
{
  const char *sets[] = { "kind=appliance", "software.data_path=sendfile_sw_ktls", "software.crypto=armv8_aes_gcm", NULL };
  Appliance *a = load("scenarios/platforms/altra-q80-30.yaml", sets);
  a->coef.k_dram = a->coef.k_remote = 0;
  const char *src = NULL;
  ck_assert_double_eq(cpu_crypto_table_cpb(CRYPTO_ARMV8_AESGCM, UARCH_NEOVERSE_N1, &src), 2.7);
  ck_assert(src && strstr(src, "FreeBSD armv8crypto"));
  double lo = 0, hi = 0;
  ck_assert(cpu_crypto_table_range(CRYPTO_ARMV8_AESGCM, UARCH_NEOVERSE_N1, &lo, &hi));
  ck_assert(lo == 1.5 && hi == 3.8);
  /* user-space OpenSSL-class code on the same core keeps the measured interleaved loop */
  ck_assert_double_eq(cpu_crypto_table_cpb(CRYPTO_OPENSSL_AESGCM, UARCH_NEOVERSE_N1, &src), 1.11);
  ck_assert(src && strstr(src, "AWS-LC"));
  ck_assert(!cpu_crypto_table_range(CRYPTO_ISAL_AESGCM, UARCH_NEOVERSE_N1, &lo, &hi));
  ck_assert_double_eq(cpu_smt_yield(&a->cpu), 1.0);
  ck_assert_double_eq(a->cpu.page_bytes, 16384);
  const Coeffs *c = &a->coef;
  double mss = 1500 - 52;
  double crypto = 2.7;
  double page = c->page_cycles / 16384.0;
  double seg = c->pkt_cycles / 65536.0;
  double irq = c->irq_cycles * (1.0 / 65536.0 + 1.0 / (2 * mss)) / 32.0;
  double ack = c->ack_cycles / (2 * mss * 8.0);
  /* requests and connections at the defaults: 32100 cycles per 2 MiB request, and 51000 +
   * 0.5 x 1.03e6 + 0.5 x 8.06e5 = 969000 cycles per 5 Mb/s x 600 s / 8 = 3.75e8 B session */
  double requests = 32100.0 / 2097152 + 969000.0 / 3.75e8;
  ck_assert_double_eq_tol(workload_request_cpb(&a->wl, TRUE), requests, 1e-15);
  double by_hand = crypto + page + seg + irq + ack + requests;
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  ck_assert(m != NULL);
  ck_assert_double_eq_tol(cpu_cycles_per_byte(m), by_hand, 1e-9 * by_hand);
  /* capacity: 80 physical cores x 3.0 GHz x 1.0 */
  int r = demand_find(m, "cpu.node0");
  ck_assert_int_ge(r, 0);
  ck_assert_double_eq_tol(m->res[r].capacity, 80 * 3.0e9, 1.0);
  /* so 100 Gb/s of software kTLS busies this share of the logical CPUs */
  double pct = 100.0 * (100e9 / 8) * by_hand / (80 * 3.0e9);
  ck_assert_double_eq_tol(100.0 * (100e9 / 8) * m->base_total[r] / m->res[r].capacity, pct, 1e-9);
  g_free(a);
}
END_TEST

/* The CPU cap is the workload's (workload.cpu_cap, default the 80 % production cap): it is the
 * CPU resource's usable share, so a CPU-bound box serves in proportion to it. The Altra with
 * software kTLS on 8 of its cores (CPU bound) and the memory stalls off (k_* = 0, so no demand
 * depends on load): at 60 % it serves 60 / 80 of its 80 % figure. The old cpu.cap key is an
 * unknown key (a located error). */
/* A CPU read of a line on another node stalls for k_remote of the line's WHOLE latency, a local
 * one for k_dram of its latency (cpu.h), derived by hand on the Skylake no-silo box: placement
 * none over 2 nodes puts half of every read on the other socket; the stalling reads are the
 * encrypt read (1 B/B) and the metadata read (0.4 B/B at MTU 1500 with LRO, coeffs.c), at idle
 * latency 82 ns local and 82 + 60 = 142 ns remote (skx-4216-2s.yaml), 2.1 GHz. With one fraction
 * at 1 and the other at 0, the stall cycles per byte are 1.4 x 1/2 x L x 2.1 / 64; the remote
 * ones are what the CPU nodes book as remote-access stalls. Under the earlier form (k_remote x
 * the 60 ns penalty only) the remote-to-local ratio would be 60/82, not 142/82. */
START_TEST(test_remote_line_whole_latency)
{
  const char *f = "scenarios/reference/skx2019_no_silo.yaml";
  double k[3][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 } }, cpb[3], booked[3];
  for (int i = 0; i < 3; i++) {
    Appliance *a = load(f, NULL);
    a->coef.k_dram = k[i][0];
    a->coef.k_remote = k[i][1];
    g_autoptr(DemandModel) m = demand_build(a, NULL);
    ck_assert(m != NULL);
    cpb[i] = cpu_cycles_per_byte(m);
    booked[i] = 0;
    for (int r = 0; r < m->n_res; r++)
      if (m->res[r].kind == RK_CPU) booked[i] += m->res[r].remote_stall;
    g_free(a);
  }
  double local = 1.4 * 0.5 * 82 * 2.1 / 64, remote = 1.4 * 0.5 * 142 * 2.1 / 64;
  ck_assert_double_eq_tol(cpb[1] - cpb[0], local, 1e-9);
  ck_assert_double_eq_tol(cpb[2] - cpb[0], remote, 1e-9);
  ck_assert_double_eq_tol(booked[2], remote, 1e-9);
  ck_assert_double_eq_tol(booked[1], 0, 1e-12);
}
END_TEST

START_TEST(test_workload_cpu_cap)
{
  const char *at80[] = { "kind=appliance", "software.data_path=sendfile_sw_ktls", "software.crypto=armv8_aes_gcm",
                         "cpu.cores_per_socket=8", NULL };
  const char *at60[] = { "kind=appliance",
                         "software.data_path=sendfile_sw_ktls",
                         "software.crypto=armv8_aes_gcm",
                         "cpu.cores_per_socket=8",
                         "workload.cpu_cap=60 %",
                         NULL };
  Appliance *a = load("scenarios/platforms/altra-q80-30.yaml", at80);
  Appliance *b = load("scenarios/platforms/altra-q80-30.yaml", at60);
  ck_assert_double_eq(a->cpu.cap, 0.8);
  ck_assert_double_eq(b->cpu.cap, 0.6);
  a->coef.k_dram = a->coef.k_remote = 0;
  b->coef.k_dram = b->coef.k_remote = 0;
  g_autoptr(DemandModel) ma = demand_build(a, NULL);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  ck_assert(ma && mb);
  int r = demand_find(mb, "cpu.node0");
  ck_assert_double_eq(mb->res[r].limit, 0.6);
  int bna = -1, bnb = -1;
  double xa = demand_saturation_Bps(ma, &bna), xb = demand_saturation_Bps(mb, &bnb);
  ck_assert_int_eq(ma->res[bna].kind, RK_CPU);
  ck_assert_int_eq(mb->res[bnb].kind, RK_CPU);
  ck_assert_double_eq_tol(xb / xa, 0.6 / 0.8, 1e-9);
  GError *e = NULL;
  const char *old[] = { "cpu.cap=90 %", NULL };
  Appliance c;
  ck_assert(!appliance_load_file("scenarios/reference/rome2022_userspace_tls.yaml", old, &c, NULL, &e));
  ck_assert_msg(strstr(e->message, "cpu.cap: unknown key 'cap': cpu.cap moved to workload.cpu_cap"), "%s", e->message);
  g_error_free(e);
  g_free(a);
  g_free(b);
}
END_TEST

/* A 2-way SMT part counts its second thread through the sourced yield, 1.30 (Marr et al. 2002). */
START_TEST(test_smt_yield)
{
  CpuCfg c = { .threads_per_core = 2, .clock_hz = 2.5e9 };
  ck_assert_double_eq(cpu_smt_yield(&c), 1.30);
  ck_assert_double_eq_tol(cpu_node_capacity_hz(&c, 32), 32 * 2.5e9 * 1.30, 1.0);
  c.smt_yield = 1.1;
  ck_assert_double_eq(cpu_smt_yield(&c), 1.1);
  c.threads_per_core = 1;
  c.smt_yield = 0;
  ck_assert_double_eq(cpu_smt_yield(&c), 1.0);
}
END_TEST

/* Writes a scenario on the Altra platform with software.crypto = crypto; returns its path. */
static char *altra_scenario(const char *dir, const char *uarch, const char *crypto)
{
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *text = g_strdup_printf("kind: appliance\nname: t\nplatform: %s/scenarios/platforms/altra-q80-30.yaml\n"
                                          "cpu: {uarch: %s}\n"
                                          "software: {data_path: sendfile_sw_ktls, crypto: %s}\n",
                                          cwd, uarch, crypto);
  char *path = g_build_filename(dir, "t.yaml", NULL);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* ISA-L's AES-GCM on arm64 is a located error naming software.crypto; an entry the table has no
 * source for is a located error naming the key that must give it (cpu.crypto_cpb). */
START_TEST(test_crypto_errors_located)
{
  g_autofree char *dir = g_dir_make_tmp("ocasim-cpu-XXXXXX", NULL);
  g_autofree char *f = altra_scenario(dir, "neoverse-n1", "isal_aes_gcm");
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert(!appliance_load_file(f, NULL, a, NULL, &e));
  g_autofree char *at = g_strdup_printf("%s:5:", f);
  ck_assert_msg(g_str_has_prefix(e->message, at), "%s", e->message);
  ck_assert_msg(strstr(e->message, "software.crypto: isal_aes_gcm cannot run on neoverse-n1"), "%s", e->message);
  ck_assert_msg(strstr(e->message, "armv8_aes_gcm"), "%s", e->message);
  g_clear_error(&e);
  g_unlink(f);
  g_free(f);
  /* ISA-L on Zen 3 has no sourced entry: cpu.crypto_cpb is required */
  f = altra_scenario(dir, "zen3", "isal_aes_gcm");
  ck_assert(!appliance_load_file(f, NULL, a, NULL, &e));
  ck_assert_msg(g_str_has_prefix(e->message, f), "%s", e->message);
  ck_assert_msg(strstr(e->message, "the crypto table has no sourced cycles/byte for isal_aes_gcm on zen3: give cpu.crypto_cpb"),
                "%s", e->message);
  g_clear_error(&e);
  /* given it, the platform loads and its figure is the cost */
  const char *sets[] = { "cpu.crypto_cpb=0.5", NULL };
  ck_assert_msg(appliance_load_file(f, sets, a, NULL, &e), "%s", e ? e->message : "");
  ck_assert_double_eq(cpu_crypto_cpb(&a->cpu, a->crypto), 0.5);
  g_unlink(f);
  g_rmdir(dir);
  g_free(a);
  /* every entry of the table carries a source */
  for (int i = 1; i < CRYPTO_COUNT; i++)
    for (int u = 0; u < UARCH_COUNT; u++) {
      const char *src = NULL;
      double v = cpu_crypto_table_cpb((CryptoImpl)i, (CpuUarch)u, &src);
      ck_assert_msg(v == 0 ? src == NULL : src != NULL && *src, "%d/%d", i, u);
    }
  /* ChaCha20-Poly1305 is the sum of the two OpenSSL headers' rows where both have one (Skylake:
   * 1.19 + 0.51); Broadwell has none in either, so it is no entry (not Haswell's figures) */
  const char *src = NULL;
  ck_assert_double_eq_tol(cpu_crypto_table_cpb(CRYPTO_CHACHA20_POLY1305, UARCH_SKYLAKE, &src), 1.19 + 0.51, 1e-12);
  ck_assert_double_eq(cpu_crypto_table_cpb(CRYPTO_CHACHA20_POLY1305, UARCH_BROADWELL, &src), 0);
}
END_TEST

/* TSO off on the Rome NIC-kTLS scenario: the CPU's cycles per byte grow by the per-segment cost
 * times the added segments per byte (one MSS instead of 64 KiB per segment), plus the interrupts
 * those segments raise at 32 packets per interrupt; nothing else moves. */
START_TEST(test_tso_off_adds_segments)
{
  const char *off[] = { "stack.tso=false", NULL };
  Appliance *on = load("scenarios/rome-400g-nic-ktls.yaml", NULL), *no = load("scenarios/rome-400g-nic-ktls.yaml", off);
  g_autoptr(DemandModel) m_on = demand_build(on, NULL);
  g_autoptr(DemandModel) m_off = demand_build(no, NULL);
  const Coeffs *c = &on->coef;
  double dseg = 1.0 / 1448.0 - 1.0 / 65536.0; /* segments per byte added */
  ck_assert_double_eq_tol(cpu_segments_per_byte(&no->stack) - cpu_segments_per_byte(&on->stack), dseg, 1e-15);
  double want = c->pkt_cycles * dseg + c->irq_cycles * dseg / 32.0;
  double got = cpu_cycles_per_byte(m_off) - cpu_cycles_per_byte(m_on);
  ck_assert_double_eq_tol(got, want, 1e-9 * want);
  g_free(on);
  g_free(no);
}
END_TEST

/* Interrupt moderation off (one interrupt per packet) adds the per-interrupt cost times the added
 * interrupts per byte: (segments + ACK packets per byte) x (1 - 1/32). */
START_TEST(test_moderation_off_adds_interrupts)
{
  const char *off[] = { "stack.interrupt_moderation=off", NULL }, *eight[] = { "stack.interrupt_moderation=8", NULL };
  Appliance *on = load("scenarios/rome-400g-nic-ktls.yaml", NULL), *no = load("scenarios/rome-400g-nic-ktls.yaml", off),
            *e8 = load("scenarios/rome-400g-nic-ktls.yaml", eight);
  ck_assert_double_eq(on->stack.irq_pkts, 32);
  ck_assert_double_eq(no->stack.irq_pkts, 1);
  ck_assert_double_eq(e8->stack.irq_pkts, 8);
  g_autoptr(DemandModel) m_on = demand_build(on, NULL);
  g_autoptr(DemandModel) m_off = demand_build(no, NULL);
  double pkts = 1.0 / 65536.0 + 1.0 / (2 * 1448.0);
  ck_assert_double_eq_tol(cpu_interrupts_per_byte(&no->stack), pkts, 1e-15);
  double want = on->coef.irq_cycles * (pkts - pkts / 32.0);
  double got = cpu_cycles_per_byte(m_off) - cpu_cycles_per_byte(m_on);
  ck_assert_double_eq_tol(got, want, 1e-9 * want);
  g_free(on);
  g_free(no);
  g_free(e8);
}
END_TEST

/* ACK events follow LRO, pages follow the page size, metadata follows packets and ACK events:
 * at MTU 1500 and LRO 8 it is the measured 0.4 B/B (euro2019_ktls); jumbo frames carry less. */
START_TEST(test_stack_rates)
{
  Coeffs c;
  coeffs_defaults(&c);
  StackCfg s = { .tso = true, .lro = true, .mtu = 1500, .tso_bytes = 65536, .lro_acks = 8, .irq_pkts = 32 };
  ck_assert_double_eq_tol(cpu_ack_events_per_byte(&s), 1.0 / (2 * 1448.0 * 8), 1e-15);
  ck_assert_double_eq_tol(cpu_meta_bytes_per_byte(&s, &c), 0.4, 1e-12);
  s.lro = false;
  ck_assert_double_eq_tol(cpu_ack_events_per_byte(&s), 1.0 / (2 * 1448.0), 1e-15);
  s.lro = true;
  s.mtu = 9000;
  ck_assert_double_eq_tol(cpu_meta_bytes_per_byte(&s, &c), c.meta_pkt_bytes / 8948.0 + 512.0 / (2 * 8948.0 * 8), 1e-12);
  CpuCfg cpu = { .page_bytes = 4096 };
  ck_assert_double_eq(cpu_pages_per_byte(&cpu), 1.0 / 4096);
  cpu.page_bytes = 16384;
  ck_assert_double_eq(cpu_pages_per_byte(&cpu), 1.0 / 16384);
}
END_TEST

/* Crypto location and byte movement combine: read/write with NIC kTLS exists and keeps the
 * server's record copy (3 copies, 8 touches); in-kernel software TLS on read/write counts the
 * record copy too (3 copies, 10 touches) and so is not the demand vector of user-space TLS (2
 * copies, 8 touches). */
START_TEST(test_paths_combine)
{
  ck_assert_int_eq(datapath_of(MOVE_READ_WRITE, TLS_NIC), DP_READ_WRITE_NIC_KTLS);
  ck_assert_int_eq(datapath_of(MOVE_READ_WRITE, TLS_NONE), DP_READ_WRITE_PLAIN);
  ck_assert_int_eq(datapath_of(MOVE_SENDFILE, TLS_KERNEL_CPU), DP_SENDFILE_SW_KTLS);
  ck_assert_int_eq(datapath_of(MOVE_SENDFILE, TLS_USER_CPU), DP_COUNT);
  for (int p = 0; p < DP_COUNT; p++) ck_assert_int_eq(datapath_of(datapath_move(p), datapath_tls(p)), p);
  ck_assert_int_eq(datapath_copies(DP_READ_WRITE), 2);
  ck_assert_int_eq(datapath_copies(DP_READ_WRITE_KTLS), 3);
  /* nginx's copy into its 16k SSL buffer stays when the NIC encrypts (euro2022) */
  ck_assert_int_eq(datapath_copies(DP_READ_WRITE_NIC_KTLS), 3);
  ck_assert_double_eq(datapath_bulk_touches(DP_READ_WRITE_NIC_KTLS, FALSE), 8);
  ck_assert_int_eq(datapath_copies(DP_READ_WRITE_PLAIN), 2);
  ck_assert_double_eq(datapath_bulk_touches(DP_READ_WRITE_PLAIN, FALSE), 6);
  ck_assert(datapath_nic_crypto(DP_READ_WRITE_NIC_KTLS) && !datapath_cpu_crypto(DP_READ_WRITE_NIC_KTLS));
  /* the two Rome rows the CPU cap binds: different demand vectors (compared at one connection
   * count, the user-space row's: each row's own served throughput sizes its buffers' residency) */
  Appliance *u = load("scenarios/reference/rome2022_userspace_tls.yaml", NULL);
  Appliance *k = load("scenarios/reference/rome2022_no_sendfile_sw_ktls.yaml", NULL);
  g_autoptr(DemandModel) mu = demand_build(u, NULL);
  g_autoptr(DemandModel) mk = demand_build_sized(k, NULL, mu->sized_Bps, NULL);
  int du = demand_find(mu, "dram.node0"), dk = demand_find(mk, "dram.node0");
  ck_assert_double_eq_tol(mk->res[dk].rd + mk->res[dk].wr - (mu->res[du].rd + mu->res[du].wr), 2.0, 1e-9);
  ck_assert(cpu_cycles_per_byte(mk) > cpu_cycles_per_byte(mu) + u->coef.copy_cpb - 0.5);
  /* read/write with NIC kTLS on the Rome box loads */
  const char *sets[] = { "software.data_path=read_write_nic_ktls", NULL };
  Appliance *n = load("scenarios/rome-400g-nic-ktls.yaml", sets);
  g_autoptr(DemandModel) mn = demand_build(n, NULL);
  ck_assert(mn != NULL);
  /* against plain HTTP over read/write at the same served throughput: the record copy's read and
   * write of the user buffer (2 m B/B of DRAM, m the buffer's miss share) and its copy cycles */
  const char *plain[] = { "software.data_path=read_write_plain", NULL };
  Appliance *pl = load("scenarios/rome-400g-nic-ktls.yaml", plain);
  g_autoptr(DemandModel) mp = demand_build_sized(pl, NULL, mn->sized_Bps, NULL);
  double dram_n = 0, dram_p = 0;
  for (int r = 0; r < mn->n_res; r++)
    if (mn->res[r].kind == RK_DRAM) dram_n += mn->res[r].rd + mn->res[r].wr;
  for (int r = 0; r < mp->n_res; r++)
    if (mp->res[r].kind == RK_DRAM) dram_p += mp->res[r].rd + mp->res[r].wr;
  double m = software_user_miss(n, mn->sized_Bps);
  ck_assert(m > 0.5);
  ck_assert_double_eq_tol(dram_n - dram_p, 2 * m, 1e-9);
  n->coef.k_dram = n->coef.k_remote = pl->coef.k_dram = pl->coef.k_remote = 0;
  g_autoptr(DemandModel) mn0 = demand_build_sized(n, NULL, mn->sized_Bps, NULL);
  g_autoptr(DemandModel) mp0 = demand_build_sized(pl, NULL, mn->sized_Bps, NULL);
  /* the copy's cycles, and the TLS handshakes plain HTTP does not pay (workload.h) */
  double tls = workload_request_cpb(&n->wl, TRUE) - workload_request_cpb(&n->wl, FALSE);
  ck_assert(tls > 0);
  ck_assert_double_eq_tol(cpu_cycles_per_byte(mn0) - cpu_cycles_per_byte(mp0), n->coef.copy_cpb + tls, 1e-9);
  g_free(pl);
  g_free(u);
  g_free(k);
  g_free(n);
}
END_TEST

/* A reused user buffer that fits the core's cache share costs no DRAM bytes: with one connection
 * per core a 64 KiB buffer against Rome's 512 KiB L2 + 4 MiB of L3 is resident (m -> 0), with
 * hundreds per core it is not (m -> 1). */
START_TEST(test_user_buffer_in_cache)
{
  double share = 512 * 1024.0 + 128 * 1048576.0 / 32;
  ck_assert(software_user_miss_share(65536, 1, share) < 1e-5);
  ck_assert(software_user_miss_share(65536, 600, share) > 0.99);
  ck_assert_double_eq(software_user_miss_share(65536, 1, 0), 1.0);
  /* through the demand model: user-space TLS at 1 Gb/s offered (a few connections per core)
   * keeps 4 of its 8 touches (the user buffer's) in cache */
  const char *few[] = { "workload.offered=1 Gb/s", NULL };
  Appliance *a = load("scenarios/reference/rome2022_userspace_tls.yaml", few);
  g_autoptr(DemandModel) m = demand_build(a, NULL);
  int d = demand_find(m, "dram.node0");
  double bulk = m->res[d].rd + m->res[d].wr - 2 * cpu_meta_bytes_per_byte(&a->stack, &a->coef) - 66.0 / (2 * 1448.0);
  ck_assert_double_eq_tol(bulk, 4.0, 0.01);
  g_free(a);
}
END_TEST

/* Egress by content is its own choice: disk-centric buffers with the LACP port (Milan) or with a
 * port in the drive's domain (Rome); by content, every class leaves on its drive's node. */
START_TEST(test_egress_by_content)
{
  const char *lacp[] = { "software.placement=disk_centric", NULL };
  const char *content[] = { "software.placement=disk_centric", "software.egress=by_content", NULL };
  Appliance *a = load("scenarios/rome-400g-nic-ktls.yaml", lacp), *b = load("scenarios/rome-400g-nic-ktls.yaml", content);
  g_autoptr(DemandModel) ma = demand_build(a, NULL);
  g_autoptr(DemandModel) mb = demand_build(b, NULL);
  int remote = 0;
  for (int i = 0; i < ma->n_class; i++) {
    int e = ma->cls[i].egress;
    remote += nic_port_domain(&a->nics[ma->port_nic[e]], &a->topo, ma->port_num[e]) != ma->cls[i].disk_node;
  }
  ck_assert_int_gt(remote, 0);
  for (int i = 0; i < mb->n_class; i++) {
    int e = mb->cls[i].egress;
    ck_assert_int_eq(nic_port_domain(&b->nics[mb->port_nic[e]], &b->topo, mb->port_num[e]), mb->cls[i].disk_node);
  }
  g_free(a);
  g_free(b);
}
END_TEST

static Suite *cpu_suite(void)
{
  Suite *s = suite_create("cpu");
  TCase *t = tcase_create("costs");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_altra_sw_ktls_by_hand);
  tcase_add_test(t, test_remote_line_whole_latency);
  tcase_add_test(t, test_workload_cpu_cap);
  tcase_add_test(t, test_smt_yield);
  tcase_add_test(t, test_crypto_errors_located);
  tcase_add_test(t, test_tso_off_adds_segments);
  tcase_add_test(t, test_moderation_off_adds_interrupts);
  tcase_add_test(t, test_stack_rates);
  tcase_add_test(t, test_paths_combine);
  tcase_add_test(t, test_user_buffer_in_cache);
  tcase_add_test(t, test_egress_by_content);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(cpu_suite());
}
