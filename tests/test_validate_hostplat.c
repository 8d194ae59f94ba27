/* tests/test_validate_hostplat.c — the host as an appliance platform: a fake sysfs/procfs tree
 * of a 2-socket box (tests/data/hostplat/box2s: 2 x 2 cores x SMT2, 2 NUMA nodes, 8 of 16 DIMM
 * slots at 2933 MT/s, 3 NVMe drives on nodes 0/1/1 at Gen4 x4, Gen4 x4, Gen3 x2, NICs eth0 100 G
 * Gen4 x16 node 1 with tls-hw-tx-offload on and eth1 25 G Gen3 x8 node 0 with it off, plus lo and
 * a veth that are not cards) is read field by field, and host-platform.yaml written from it
 * loads in the appliance model with the same drives, NICs, links and NUMA nodes, and passes
 * `ocasim check`; this host's own tree does too. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "models/appliance/loader.h"
#include "models/appliance/topology.h"
#include "sim/conf.h"
#include "tests/support/check_run.h"
#include "validate/hostplat.h"
#include "validate/profile.h"

#define BOX "tests/data/hostplat/box2s"

static gboolean load(const char *yaml, Appliance *a, GError **error)
{
  g_autoptr(SimConfDoc) doc = sim_conf_load_string(yaml, "host-platform.yaml", error);
  return doc && appliance_from_conf(sim_conf_doc_root(doc), a, NULL, error);
}

/* `ocasim check FILE` exit status (-1 when it cannot run). */
static int ocasim_check(const char *yaml)
{
  const char *bin = g_getenv("OCASIM_BIN");
  if (!bin) bin = "./ocasim";
  g_autofree char *dir = g_dir_make_tmp("hostplat-XXXXXX", NULL);
  ck_assert(dir != NULL);
  g_autofree char *path = g_build_filename(dir, "host-platform.yaml", NULL);
  ck_assert(g_file_set_contents(path, yaml, -1, NULL));
  const char *argv[] = { bin, "check", path, NULL };
  int status = -1;
  g_autofree char *err = NULL;
  gboolean ran = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL);
  g_unlink(path);
  g_rmdir(dir);
  if (!ran) return -1;
  if (status) fprintf(stderr, "ocasim check: %s\n", err);
  return g_spawn_check_wait_status(status, NULL) ? 0 : 1;
}

START_TEST(test_read_box)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read(BOX);
  ck_assert_int_eq(h->cpus_online, 8);
  ck_assert_int_eq(h->sockets, 2);
  ck_assert_int_eq(h->cores_per_socket, 2);
  ck_assert_int_eq(h->threads_per_core, 2);
  ck_assert_str_eq(h->cpu_model, "Intel(R) Xeon(R) Gold 6338N CPU @ 2.20GHz");
  ck_assert_double_eq_tol(h->cpuinfo_hz, 2.2e9, 1);
  ck_assert(h->flag_vaes && h->flag_avx512f && h->flag_aes);
  ck_assert_uint_eq(h->l2_per_core_bytes, 1280 * 1024);
  ck_assert_uint_eq(h->l3_bytes, 48u << 20);
  ck_assert_int_eq(h->numa_nodes, 2);
  ck_assert_int_eq(h->node_cpus[0], 4);
  ck_assert_int_eq(h->node_cpus[1], 4);
  ck_assert_uint_eq(h->mem_total_bytes, 263842816ull * 1024);
  ck_assert_int_eq(h->dimms, 8);
  ck_assert_double_eq(h->dimm_mts, 2933); /* the slowest populated DIMM's configured speed */
  ck_assert_uint_eq(h->nvme->len, 3);
  const ValHpNvme *d2 = &g_array_index(h->nvme, ValHpNvme, 2);
  ck_assert_str_eq(d2->name, "nvme2");
  ck_assert_str_eq(d2->model, "INTEL SSDPE2KX020T8");
  ck_assert_int_eq(d2->numa_node, 1);
  ck_assert_int_eq(d2->link_width, 2);
  ck_assert_double_eq(d2->link_gts, 8.0);
  ck_assert_uint_eq(h->nics->len, 2); /* lo and veth0 have no device */
  const ValHpNic *e0 = &g_array_index(h->nics, ValHpNic, 0), *e1 = &g_array_index(h->nics, ValHpNic, 1);
  ck_assert_str_eq(e0->name, "eth0");
  ck_assert_double_eq(e0->speed_mbps, 100000);
  ck_assert_int_eq(e0->numa_node, 1);
  ck_assert_int_eq(e0->tls_tx_offload, 1);
  ck_assert_int_eq(e1->tls_tx_offload, 0);
  ck_assert_int_eq(e1->link_width, 8);
}
END_TEST

/* A speed that is -1 read as unsigned (4294967295 Mb/s, some virtual NICs) is unknown: the
 * placeholder line rate, as for -1, not a 4.3 Pb/s port. */
START_TEST(test_unset_nic_speed)
{
  g_autofree char *dir = g_dir_make_tmp("hostplat-XXXXXX", NULL);
  g_autofree char *cp = g_strdup_printf("cp -r " BOX "/. %s", dir);
  int status = -1;
  ck_assert(g_spawn_command_line_sync(cp, NULL, NULL, &status, NULL) && g_spawn_check_wait_status(status, NULL));
  g_autofree char *speed = g_build_filename(dir, "sys/class/net/eth1/speed", NULL);
  ck_assert(g_file_set_contents(speed, "4294967295\n", -1, NULL));
  g_autoptr(ValHostPlat) h = val_hostplat_read(dir);
  ck_assert_uint_eq(h->nics->len, 2);
  ck_assert_double_eq(g_array_index(h->nics, ValHpNic, 1).speed_mbps, -1);
  g_autofree char *yaml = val_hostplat_yaml(h, 2.2e9, 0, TRUE, NULL);
  ck_assert_msg(strstr(yaml, "model: \"eth1\", ports: 1, port_speed: 10 Gb/s") != NULL, "%s", yaml);
  g_autofree char *rm = g_strdup_printf("rm -rf %s", dir);
  ck_assert(g_spawn_command_line_sync(rm, NULL, NULL, NULL, NULL));
}
END_TEST

START_TEST(test_platform_matches_sysfs)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read(BOX);
  ValHostProfile p = { .clock_hz = 2.2e9 };
  p.p[VAL_P_CRYPTO_AES128] = 0.65;
  p.p[VAL_P_COPY] = 0.31;
  g_autofree char *costs = val_host_costs_yaml(&p, "test box");
  g_autofree char *yaml = val_hostplat_yaml(h, 2.2e9, 0, TRUE, costs);
  Appliance a;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(load(yaml, &a, &err), "%s\n%s", err ? err->message : "", yaml);
  ck_assert_int_eq(a.topo.sockets, 2);
  ck_assert_int_eq(a.topo.nps, 1);
  ck_assert_int_eq(topo_nodes(&a.topo), 2);
  ck_assert_int_eq(a.mem.channels_per_socket, 4); /* 8 DIMMs over 2 sockets, one per channel */
  ck_assert_double_eq_tol(a.mem.speed_tps, 2.933e9, 1);
  ck_assert_double_eq_tol(a.cpu.clock_hz, 2.2e9, 1);
  ck_assert_double_eq_tol(a.cpu.costs.copy_cpb, 0.31, 1e-9);
  ck_assert_double_eq_tol(a.cpu.costs.crypto_cpb[COST_AES_128_GCM], 0.65, 1e-9);
  /* the drives: count, node, link generation and width as sysfs says */
  ck_assert_int_eq(a.n_drives, (int)h->nvme->len);
  for (int i = 0; i < a.n_drives; i++) {
    const ValHpNvme *d = &g_array_index(h->nvme, ValHpNvme, i);
    ck_assert_int_eq(topo_node_of(&a.topo, a.drives[i].pos), d->numa_node);
    ck_assert_int_eq(a.drives[i].link.lanes, d->link_width);
    ck_assert_int_eq(a.drives[i].link.gen, val_hostplat_pcie_gen(d->link_gts));
  }
  ck_assert_int_eq(a.drives[2].link.gen, 3);
  ck_assert_int_eq(a.drives[2].link.lanes, 2);
  /* the NICs: node, line rate, link, inline engine only where the offload is on */
  ck_assert_int_eq(a.n_nics, 2);
  for (int i = 0; i < a.n_nics; i++) {
    const ValHpNic *n = &g_array_index(h->nics, ValHpNic, i);
    ck_assert_int_eq(topo_node_of(&a.topo, a.nics[i].pos), n->numa_node);
    ck_assert_double_eq_tol(a.nics[i].port_bps, n->speed_mbps * 1e6, 1);
    ck_assert_int_eq(a.nics[i].link.lanes, n->link_width);
    ck_assert_double_eq_tol(a.nics[i].ktls_bps, n->tls_tx_offload == 1 ? n->speed_mbps * 1e6 : 0, 1);
  }
  ck_assert_int_eq(a.path, DP_SENDFILE_SW_KTLS); /* eth1 has no engine: nic_ktls needs one on every card */
  ck_assert_int_eq(ocasim_check(yaml), 0);
}
END_TEST

/* This host's own tree (a VM here: no NVMe, no SMBIOS, a virtual NIC) still gives a file that
 * loads: placeholders where sysfs has nothing, the measured DRAM bandwidth as the memory. */
START_TEST(test_this_host_loads)
{
  g_autoptr(ValHostPlat) h = val_hostplat_read("/");
  ck_assert_int_ge(h->cpus_online, 1);
  ck_assert_int_eq(h->sockets * h->cores_per_socket * h->threads_per_core >= h->cpus_online, 1);
  g_autofree char *yaml = val_hostplat_yaml(h, 0, 12.5, FALSE, NULL);
  Appliance a;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(load(yaml, &a, &err), "%s\n%s", err ? err->message : "", yaml);
  ck_assert_int_eq(a.n_drives, MAX((int)h->nvme->len, 1));
  if (h->dimms == 0) /* the measured 12.5 GB/s as the bus of the written channels */
    ck_assert_double_eq_tol(a.mem.channels_per_socket * a.mem.speed_tps * 8, 12.5e9, 1e7);
  ck_assert_int_eq(ocasim_check(yaml), 0);
}
END_TEST

START_TEST(test_parsers)
{
  ck_assert_int_eq(val_hostplat_parse_ethtool_tls("tls-hw-tx-offload: on\n"), 1);
  ck_assert_int_eq(val_hostplat_parse_ethtool_tls("x: on\ntls-hw-tx-offload: off [fixed]\n"), 0);
  ck_assert_int_eq(val_hostplat_parse_ethtool_tls("tls-hw-rx-offload: on\n"), -1);
  ck_assert_int_eq(val_hostplat_pcie_gen(2.5), 1);
  ck_assert_int_eq(val_hostplat_pcie_gen(16.0), 4);
  ck_assert_int_eq(val_hostplat_pcie_gen(32.0), 5);
  ck_assert_int_eq(val_hostplat_pcie_gen(0), 0);
  /* SMBIOS type 17: 16 GiB at 3200 rated, 2933 configured; KiB-granular size; the extended size */
  guint8 raw[0x28] = { 17, 0x28 };
  raw[0x0C] = 0x00, raw[0x0D] = 0x40; /* 16384 MiB */
  raw[0x15] = 0x80, raw[0x16] = 0x0C; /* 3200 */
  raw[0x20] = 0x75, raw[0x21] = 0x0B; /* 2933 */
  uint64_t mib = 0;
  double mts = 0;
  ck_assert(val_hostplat_parse_dmi17(raw, sizeof raw, &mib, &mts));
  ck_assert_uint_eq(mib, 16384);
  ck_assert_double_eq(mts, 2933);
  raw[0x20] = raw[0x21] = 0; /* no configured speed: the rated one */
  raw[0x0C] = 0xFF, raw[0x0D] = 0x7F, raw[0x1C] = 0x00, raw[0x1D] = 0x00, raw[0x1E] = 0x02; /* extended: 128 GiB */
  ck_assert(val_hostplat_parse_dmi17(raw, sizeof raw, &mib, &mts));
  ck_assert_uint_eq(mib, 131072);
  ck_assert_double_eq(mts, 3200);
  raw[0] = 16;
  ck_assert(!val_hostplat_parse_dmi17(raw, sizeof raw, &mib, &mts));
  /* model node: -1 as node 0, beyond the platform's nodes clamped */
  g_autoptr(ValHostPlat) h = val_hostplat_read(BOX);
  ck_assert_int_eq(val_hostplat_model_node(h, -1), 0);
  ck_assert_int_eq(val_hostplat_model_node(h, 1), 1);
  ck_assert_int_eq(val_hostplat_model_node(h, 7), 1);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("validate_hostplat");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_read_box);
  tcase_add_test(tc, test_unset_nic_speed);
  tcase_add_test(tc, test_platform_matches_sysfs);
  tcase_add_test(tc, test_this_host_loads);
  tcase_add_test(tc, test_parsers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
