# tests/tests.mk — extra targets of the test suites.
#   make golden-update   rewrite tests/golden/ from the current build: for an intended change of
#                        output only; commit the diff with the change and say why (tests/test_golden.c)
.PHONY: golden-update
golden-update: $(BUILD)/tests/test_golden $(BIN)
	@OCASIM_GOLDEN_UPDATE=1 OCASIM_BIN=$(abspath $(BIN)) $(BUILD)/tests/test_golden >/dev/null && \
	  echo "tests/golden: $$(ls tests/golden | wc -l) files rewritten; review git diff tests/golden"
#   make figures-update  rewrite tests/figures.csv (headline figures of every scenario, checked within
#                        tolerances by tests/test_figures.c) and print each figure that moved
.PHONY: figures-update
figures-update: $(BUILD)/tests/test_figures $(BIN)
	@OCASIM_FIGURES_UPDATE=1 CK_RUN_CASE=scenarios CK_VERBOSITY=silent OCASIM_BIN=$(abspath $(BIN)) $(BUILD)/tests/test_figures
