/* tests/test_appliance_conf.c — binding of `kind: appliance` scenarios: every shipped scenario
 * loads and validates, platform includes and --set overrides, NUMA mapping of device positions,
 * and scenarios/README.md's key tables are the ones the schema generates. */
#include <check.h>
#include "tests/support/check_run.h"
#include <string.h>

#include "models/reference/refset.h"
#include "models/appliance/model_error.h"

static gboolean is_appliance(const char *path)
{
  g_autofree char *t = NULL;
  if (!g_file_get_contents(path, &t, NULL, NULL)) return FALSE;
  return strstr(t, "kind: appliance") != NULL;
}

START_TEST(test_all_scenarios_load)
{
  const char *dirs[] = { "scenarios", "scenarios/reference" };
  int n = 0;
  for (size_t k = 0; k < G_N_ELEMENTS(dirs); k++) {
    g_autoptr(GDir) d = g_dir_open(dirs[k], 0, NULL);
    ck_assert(d != NULL);
    const char *f;
    while ((f = g_dir_read_name(d))) {
      g_autofree char *p = g_build_filename(dirs[k], f, NULL);
      if (!g_str_has_suffix(f, ".yaml") || !is_appliance(p)) continue;
      Appliance *a = g_new0(Appliance, 1);
      AppScenarioInfo info = { 0 };
      GError *e = NULL;
      ck_assert_msg(appliance_load_file(p, NULL, a, &info, &e), "%s: %s", p, e ? e->message : "");
      g_autoptr(DemandModel) m = demand_build(a, &e);
      ck_assert_msg(m != NULL, "%s: %s", p, e ? e->message : "");
      if (k == 1) ck_assert_msg(info.ref.present && info.ref.gbps > 0, "%s has no reference block", p);
      app_scenario_info_clear(&info);
      g_free(a);
      n++;
    }
  }
  ck_assert_int_ge(n, 28);
}
END_TEST

START_TEST(test_nps_mapping_and_overrides)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", NULL, a, NULL, &e));
  ck_assert_int_eq(topo_nodes(&a->topo), 4);
  /* drives per node n0:2 n1:6 n2:4 n3:6 (published.yaml) */
  int per[4] = { 0 };
  for (int d = 0; d < a->n_drives; d++) per[topo_node_of(&a->topo, a->drives[d].pos)]++;
  ck_assert_int_eq(per[0], 2);
  ck_assert_int_eq(per[1], 6);
  ck_assert_int_eq(per[2], 4);
  ck_assert_int_eq(per[3], 6);
  /* "as built": four ports bound to the four domains, NICs physically on nodes 0 and 2 */
  ck_assert_int_eq(topo_node_of(&a->topo, a->nics[0].pos), 0);
  ck_assert_int_eq(topo_node_of(&a->topo, a->nics[1].pos), 2);
  ck_assert_int_eq(nic_port_domain(&a->nics[0], &a->topo, 1), 1);
  ck_assert_int_eq(nic_port_domain(&a->nics[1], &a->topo, 1), 3);
  ck_assert_double_eq_tol(a->cpu.clock_hz, 2.5e9, 1e-3);
  ck_assert_double_eq_tol(a->mem.speed_tps, 3200e6, 1e-3);
  ck_assert_double_eq_tol(a->nics[0].ktls_bps, 190e9, 1e-3);
  /* the same platform in NPS1 through --set: one node, every device on it */
  const char *sets[] = { "topology.nps=1", "workload.offered=200 Gb/s", NULL };
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, a, NULL, &e));
  ck_assert_int_eq(topo_nodes(&a->topo), 1);
  ck_assert_double_eq_tol(a->wl.offered_gbps, 200, 1e-9);
  for (int d = 0; d < a->n_drives; d++) ck_assert_int_eq(topo_node_of(&a->topo, a->drives[d].pos), 0);
  /* a bad override is a located --set error */
  const char *bad[] = { "topology.nps=3", NULL };
  ck_assert(!appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", bad, a, NULL, &e));
  ck_assert_msg(strstr(e->message, "topology.nps"), "%s", e->message);
  g_clear_error(&e);
  g_free(a);
}
END_TEST

START_TEST(test_readme_schema_current)
{
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents("scenarios/README.md", &text, NULL, NULL));
  const char *b = strstr(text, "<!-- schema:begin -->\n"), *e = strstr(text, "<!-- schema:end -->");
  ck_assert(b && e && e > b);
  b += strlen("<!-- schema:begin -->\n");
  g_autoptr(GString) want = g_string_new(NULL);
  appliance_conf_markdown(want);
  g_autofree char *have = g_strndup(b, (gsize)(e - b));
  ck_assert_msg(strcmp(have, want->str) == 0, "scenarios/README.md key tables are stale: run make scenario-docs");
  /* the reference table is the one make reference prints with the default coefficients */
  b = strstr(text, "<!-- reference:begin -->\n");
  e = strstr(text, "<!-- reference:end -->");
  ck_assert(b && e && e > b);
  b += strlen("<!-- reference:begin -->\n");
  GError *err = NULL;
  g_autoptr(AppRefSet) s = refset_load("scenarios/reference", &err);
  ck_assert(s != NULL);
  Coeffs c;
  coeffs_defaults(&c);
  g_autoptr(GString) table = g_string_new(NULL);
  refset_table(s, &c, table, NULL);
  g_autofree char *have_t = g_strndup(b, (gsize)(e - b));
  ck_assert_msg(strcmp(have_t, table->str) == 0, "scenarios/README.md reference table is stale: run make scenario-docs");
  /* the top-level README carries the same table */
  g_autofree char *readme = NULL;
  ck_assert(g_file_get_contents("README.md", &readme, NULL, NULL));
  b = strstr(readme, "<!-- reference:begin -->\n");
  e = strstr(readme, "<!-- reference:end -->");
  ck_assert(b && e && e > b);
  b += strlen("<!-- reference:begin -->\n");
  g_autofree char *have_r = g_strndup(b, (gsize)(e - b));
  ck_assert_msg(strcmp(have_r, table->str) == 0, "README.md reference table is stale: run make scenario-docs");
}
END_TEST

/* Each enum has one list: its names table is in enum order, NULL-terminated, and is what the
 * conf accepts (a name binds to its enumerator, no positional cast). */
START_TEST(test_enum_tables)
{
  ck_assert_str_eq(datapath_names[DP_SENDFILE_NIC_KTLS], "sendfile_nic_ktls");
  ck_assert_ptr_null(datapath_names[DP_COUNT]);
  ck_assert_str_eq(datapath_alt_names[DP_COUNT], "none");
  ck_assert_str_eq(datapath_name(DP_READ_WRITE_KTLS), "read_write_ktls");
  ck_assert_str_eq(datapath_name(DP_COUNT), "?");
  ck_assert_str_eq(cpu_uarch_names[UARCH_NEOVERSE_N1], "neoverse-n1");
  ck_assert_ptr_null(cpu_uarch_names[UARCH_COUNT]);
  ck_assert_str_eq(cpu_crypto_names[CRYPTO_CHACHA20_POLY1305], "chacha20_poly1305");
  ck_assert_str_eq(placement_names[PL_STRICT_DISK_CENTRIC], "strict_disk_centric");
  ck_assert_str_eq(demand_kind_name(RK_THREADS), "threads");
  ck_assert_str_eq(loopback_cipher_name(LB_CHACHA20_POLY1305), "chacha20_poly1305");
  ck_assert_str_eq(topo_link_kind_names[TOPO_LINK_UPI], "upi");
  /* bound straight into the typed fields */
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  const char *sets[] = { "software.data_path=sendfile_sw_ktls",
                         "software.placement=disk_centric",
                         "software.sendfile=sync",
                         "workload.alt_path=read_write",
                         "workload.alt_fraction=10 %",
                         "topology.link_routing=device",
                         NULL };
  ck_assert_msg(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, a, NULL, &e), "%s", e ? e->message : "");
  ck_assert_int_eq(a->path, DP_SENDFILE_SW_KTLS);
  ck_assert_int_eq(a->placement, PL_DISK_CENTRIC);
  ck_assert_int_eq(a->sendfile, SENDFILE_SYNC);
  ck_assert_int_eq(a->wl.alt_path, DP_READ_WRITE);
  ck_assert_int_eq(a->topo.link_routing, TOPO_ROUTE_DEVICE);
  ck_assert_int_eq(a->nics[0].kind, NIC_PCIE);
  g_free(a);
}
END_TEST

/* A model error carries its key path (the device's scenario group), not only in its text; the
 * loader places it at that key, and sim_conf_node_find reads the same key paths as --set. */
START_TEST(test_model_error_located)
{
  Appliance *a = g_new0(Appliance, 1);
  GError *e = NULL;
  ck_assert(appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", NULL, a, NULL, &e));
  /* drive 9 is the fourth of group 2 (2 + 6 + 4 drives) */
  ck_assert_int_eq(a->drives[9].group, 2);
  a->drives[9].link.lanes = 3;
  ck_assert(!appliance_validate(a, &e));
  ck_assert(g_error_matches(e, MODEL_ERROR, MODEL_ERROR_INVALID));
  ck_assert_str_eq(model_error_path(e), "nvme[2].pcie");
  ck_assert_str_eq(model_error_detail(e), "PCIe lanes must be x1, x2, x4, x8 or x16, got x3");
  ck_assert_str_eq(e->message, "nvme[2].pcie: PCIe lanes must be x1, x2, x4, x8 or x16, got x3");
  g_clear_error(&e);
  /* through the loader: FILE:LINE:COL of the group's pcie map */
  const char *sets[] = { "nvme[2].pcie.lanes=3", NULL };
  ck_assert(!appliance_load_file("scenarios/rome-400g-nic-ktls.yaml", sets, a, NULL, &e));
  ck_assert(g_error_matches(e, SIM_CONF_ERROR, SIM_CONF_ERROR_RANGE));
  ck_assert_msg(strstr(e->message, "nvme[2].pcie") && strstr(e->message, "got x3"), "%s", e->message);
  g_clear_error(&e);
  /* the key-path lookup: exact node, deepest existing node, list index */
  g_autoptr(SimConfDoc) doc = sim_conf_load_string("a: {b: [1, {c: 2}]}\n", "<t>", &e);
  ck_assert(doc != NULL);
  const SimConfNode *root = sim_conf_doc_root(doc);
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_find(root, "a.b[1].c")), "2");
  ck_assert_str_eq(sim_conf_node_text(sim_conf_node_find(root, "a.b.1.c")), "2");
  g_autofree char *p1 = sim_conf_node_path(sim_conf_node_find(root, "a.b[1].d"));
  ck_assert_str_eq(p1, "a.b[1]");
  g_autofree char *p2 = sim_conf_node_path(sim_conf_node_find(root, "a.b[7]"));
  ck_assert_str_eq(p2, "a.b");
  ck_assert_ptr_eq(sim_conf_node_find(root, "a..b"), root);
  ck_assert_ptr_eq(sim_conf_node_find(root, ""), root);
  g_free(a);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("appliance_conf");
  TCase *t = tcase_create("conf");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_all_scenarios_load);
  tcase_add_test(t, test_nps_mapping_and_overrides);
  tcase_add_test(t, test_readme_schema_current);
  tcase_add_test(t, test_enum_tables);
  tcase_add_test(t, test_model_error_located);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  return test_run_suite(suite());
}
