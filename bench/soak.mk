# bench/soak.mk — `make bench-soak`, a row of `make bench` (bench/README.md, "DES soak").
# The release `ocasim run` of the 800G scenario for BENCH_SOAK_DURATION simulated (default
# 600 s, ten minutes) with its RSS sampled every BENCH_SOAK_INTERVAL seconds (bench/soak.sh):
# after the first BENCH_SOAK_WARM % of the samples, growth of more than BENCH_SOAK_BOUND % over
# the first one prints FAIL in the row.  Report only: the target never fails on it.
BENCH_TARGETS += bench-soak

BENCH_SOAK_SCENARIO ?= scenarios/milan-800g-dlwm-off-network-centric.yaml
BENCH_SOAK_DURATION ?= 600 s
BENCH_SOAK_WARMUP   ?= 10 s
BENCH_SOAK_INTERVAL ?= 1
BENCH_SOAK_WARM     ?= 10
BENCH_SOAK_BOUND    ?= 5

.PHONY: bench-soak
bench-soak:
	@$(MAKE) --no-print-directory SANITIZE= ocasim
	@echo "bench-soak: ocasim run $(BENCH_SOAK_SCENARIO), $(BENCH_SOAK_DURATION) simulated (warm-up $(BENCH_SOAK_WARMUP)), RSS every $(BENCH_SOAK_INTERVAL) s"
	@printf '%-38s | %9s | %7s | %7s | %9s | %9s | %9s | %9s | %s\n' scenario simulated "wall s" samples \
	  "RSS0 MiB" "last MiB" "peak MiB" growth verdict
	@sh bench/soak.sh ./ocasim $(BENCH_SOAK_SCENARIO) "$(BENCH_SOAK_DURATION)" "$(BENCH_SOAK_WARMUP)" \
	  $(BENCH_SOAK_INTERVAL) $(BENCH_SOAK_WARM) $(BENCH_SOAK_BOUND)
