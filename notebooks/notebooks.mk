# notebooks/notebooks.mk — the analysis notebooks (Jupyter, Debian's python3-pandas,
# python3-matplotlib, jupyter-nbconvert, python3-ipykernel).
#   make notebooks        executes every notebooks/*.ipynb headless (nbconvert --execute; -jN: N at
#                         a time; each runs ./ocasim itself), the executed copies into build/notebooks/executed/, the
#                         figures into notebooks/figures/*.png, then checks that each expected
#                         figure exists and is non-empty (CI; about a minute, calibration.ipynb
#                         reuses build/validate-quick/report.json when make validate-quick ran)
#   make notebooks-check  only that check (scripts/check-figures.sh, the list in notebooks/figures.txt)
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
NBCONVERT ?= jupyter-nbconvert
NB_TIMEOUT ?= 900
.PHONY: notebooks notebooks-check

# One rule per notebook (they share no output), so that `make -jN notebooks` runs N at a time.
NB_RUNS := $(NOTEBOOKS:notebooks/%.ipynb=notebook-%)
.PHONY: $(NB_RUNS)
notebooks: $(BIN)
	@mkdir -p build/notebooks/executed notebooks/figures
	@rm -f notebooks/figures/*.png
	@$(MAKE) --no-print-directory -Otarget $(NB_RUNS)
	@$(MAKE) --no-print-directory notebooks-check

$(NB_RUNS): notebook-%: $(BIN)
	PYDEVD_DISABLE_FILE_VALIDATION=1 OCASIM_BIN=$(abspath $(BIN)) $(NBCONVERT) --to notebook --execute --ExecutePreprocessor.timeout=$(NB_TIMEOUT) \
	  --ExecutePreprocessor.kernel_name=python3 --output-dir build/notebooks/executed notebooks/$*.ipynb

notebooks-check:
	@sh scripts/check-figures.sh notebooks/figures.txt
