# tests/tests.mk — extra targets of the test suites.
#   make golden-update   rewrite the few byte-exact goldens (tests/golden/, the formats; the table in
#                        tests/test_golden.c) from the current build: for an intended change of
#                        output only; commit the diff with the change and say why
.PHONY: golden-update
golden-update: $(BUILD)/tests/test_golden $(BIN)
	@OCASIM_GOLDEN_UPDATE=1 OCASIM_BIN=$(abspath $(BIN)) $(BUILD)/tests/test_golden >/dev/null && \
	  echo "tests/golden: $$(ls tests/golden | wc -l) files rewritten; review git diff tests/golden"
#   make figures-update  rewrite tests/figures.csv (every scenario's headline figures, checked within
#                        tolerances by tests/test_figures.c) and print each figure that moved,
#                        `scenario mode figure: old -> new (+x %)`; commit it with the change and say why
.PHONY: figures-update
figures-update: $(BUILD)/tests/test_figures $(BIN)
	@OCASIM_FIGURES_UPDATE=1 CK_RUN_CASE=scenarios CK_VERBOSITY=silent OCASIM_BIN=$(abspath $(BIN)) $(BUILD)/tests/test_figures
# test_sweep drives the appliance half of `ocasim sweep` in-process: cli/sweep_appliance.c, which
# lives beside the command (not in libocasim.a), links in too
$(BUILD)/tests/test_sweep: $(BUILD)/tests/test_sweep.o $(TEST_SUPPORT_OBJ) $(BUILD)/cli/sweep_appliance.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CHECK_LIBS)
