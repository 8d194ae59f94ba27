# bench/precision.mk — `make bench-precision`: the DES's rate precision knob (issue 32).
#
# For each bench box (400G, 800G, the 800G what-if, 64 drives x 64 ports: the rows of
# bench-models) and each EPS of BENCH_PRECISION_EPS, one `ocasim run` as
# `--rate-precision EPS` runs it (bench/bench_precision.c, one process per run), repeated
# BENCH_PRECISION_REPS times (outputs are the same each time; the least CPU time is kept),
# EPS 0 (exact) first.  The table (bench/precision_table.awk): speed (simulated s per CPU s,
# x real time), solves and deferred changes, and each EPS's difference from the exact run in
# throughput, the resources' utilisations (the largest difference, in points and relative to
# that resource's, with the exact run's 95 % half-width beside it), p50 and p99 (with the exact
# run's 95 % half-widths).  Report only: never fails on timing or error.
# Knobs: BENCH_PRECISION_EPS, BENCH_PRECISION_REPS, BENCH_PRECISION_DURATION (every box,
# warm-up included), BENCH_PRECISION_WARMUP.
BENCH_TARGETS += bench-precision

BENCH_PRECISION_EPS      ?= 1e-6 1e-4 1e-3 1e-2 1e-1
BENCH_PRECISION_REPS     ?= 3
BENCH_PRECISION_DURATION ?= 1 s
BENCH_PRECISION_WARMUP   ?= 0.1 s
BENCH_PRECISION_ROWS := "400G|scenarios/rome-400g-nic-ktls.yaml|$(BENCH_PRECISION_DURATION)|$(BENCH_PRECISION_WARMUP)" \
                        "800G|scenarios/reference/milan2022_strict_disk_silo.yaml|$(BENCH_PRECISION_DURATION)|$(BENCH_PRECISION_WARMUP)" \
                        "800G-wi|scenarios/milan-800g-dlwm-off-network-centric.yaml|$(BENCH_PRECISION_DURATION)|$(BENCH_PRECISION_WARMUP)" \
                        "64x64|bench/milan-64x64.yaml|$(BENCH_PRECISION_DURATION)|$(BENCH_PRECISION_WARMUP)"

.PHONY: bench-precision

$(BENCH_DIR)/bench_precision: bench/bench_precision.c bench/des_bench.h build/release/libocasim.a.bench-stamp
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. $(shell pkg-config --cflags $(BENCH_MODEL_PKGS) 2>/dev/null) -o $@ bench/bench_precision.c \
	  build/release/libocasim.a $(shell pkg-config --libs $(BENCH_MODEL_PKGS) 2>/dev/null) -lm -lpthread

bench-precision: $(BENCH_DIR)/bench_precision
	@out=$(BENCH_DIR)/precision.out; : > $$out; \
	echo "bench-precision: ocasim run --rate-precision EPS for EPS in 0 $(BENCH_PRECISION_EPS), best CPU of $(BENCH_PRECISION_REPS)"; \
	for row in $(BENCH_PRECISION_ROWS); do \
	  IFS='|'; set -- $$row; unset IFS; \
	  for eps in 0 $(BENCH_PRECISION_EPS); do \
	    for rep in $$(seq $(BENCH_PRECISION_REPS)); do \
	      $(BENCH_DIR)/bench_precision "$$1" "$$2" "$$3" "$$4" "$$eps" >> $$out \
	        || echo "NOTE bench_precision $$1 $$eps failed" >> $$out; \
	    done; \
	  done; \
	done; \
	awk -f bench/precision_table.awk $$out
