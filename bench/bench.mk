# bench/bench.mk — `make bench`: speed reports, never pass/fail on timing.
#
# `make bench` runs every target listed in BENCH_TARGETS, one after the other
# (never in parallel, whatever -j says: they time things).  A folder adds its
# own rows by appending a target from its *.mk file:
#     BENCH_TARGETS += bench-models
#     bench-models: ...; recipe that prints its table
# Knobs: BENCH_SECONDS (timed seconds per measurement, default 0.5),
#        BENCH_SIZES (pending-set sizes), BENCH_NS3_MAX_N (largest size the
#        ns-3 driver runs, default 1e6), BENCH_DIST (--exp, --uniform,
#        --bimodal or --ties; bench/hold.h).
#
# bench-calendar: hold-model rate of sim/calendar.c next to ns-3's schedulers
# (bench/README.md) and the candidate structures it was chosen from.  bench-models: simulated
# seconds per wall and per CPU second and peak RSS of `ocasim run` on the appliance scenarios
# (below).  Everything is
# built here with release flags (-O2, never the sanitizers, whatever SANITIZE
# says) into build/bench/ (bench-models links the release library).
# bench-qnet-ps: wall seconds of `ocasim run` (release build) on the overloaded
# processor-sharing station bench/mg1-ps-overload.yaml, 20 000 s simulated.
# bench-bound: CPU time of `ocasim bound` per call and of a 1000-point bound sweep at -j 1,
# this build against a reference build (commit BENCH_BOUND_REF) alternated (bench/bench-bound.sh).

BENCH_TARGETS += bench-calendar bench-models bench-qnet-ps bench-bound bench-interval

BENCH_DIR     := build/bench
BENCH_SECONDS ?= 0.5
BENCH_SIZES   ?= 1000 10000 100000 1000000 10000000
BENCH_DIST    ?= --exp
# Largest size ns-3 runs at (its std::map at 1e7 costs minutes on a busy VM).
BENCH_NS3_MAX_N ?= 1000000
BENCH_CFLAGS  := -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) $(shell pkg-config --cflags glib-2.0 2>/dev/null)
BENCH_LIBS    := $(shell pkg-config --libs glib-2.0 2>/dev/null) -lm
BENCH_CXX     ?= g++
BENCH_CXXFLAGS := -O2 -g -std=c++17 -Wall -Wextra
# Debian's ns3-core.pc has a broken Cflags line (-I"/usr/include" -I/usr;...):
# take only its Libs, the headers are under the default /usr/include/ns3.
BENCH_NS3_LIBS := $(or $(shell pkg-config --libs ns3-core 2>/dev/null),-lns3-core)

BENCH_CAL_DEPS := bench/bench_calendar.c bench/hold.h sim/calendar.c sim/calendar.h sim/engine.c sim/engine.h sim/time.h

.PHONY: bench-calendar bench-models bench-qnet-ps bench-bound bench-interval

# bench-interval: wall seconds of `ocasim bound` with and without prediction intervals on every
# published-result scenario, and a 1000-point bound sweep with intervals at -j 2
# (scripts/bench-interval.sh; bench/README.md).
bench-interval: $(BIN)
	@sh scripts/bench-interval.sh ./$(BIN)

bench:
	@fail=0; for t in $(BENCH_TARGETS); do \
	  $(MAKE) --no-print-directory $$t || fail=1; \
	done; exit $$fail

# The calendar as built for the engine (radix wheel, list or array buckets) and the
# candidates it was chosen from (bench/README.md): the same wheel with list
# buckets only (sim/calendar.c never switching to arrays), a two-level wheel with a sorted
# spill and a ladder queue (bench/ref/alt/), the 4-ary heap before the wheel
# and the same heap 8-ary (bench/ref/heap4/).
$(BENCH_DIR)/bench_calendar: $(BENCH_CAL_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -o $@ bench/bench_calendar.c sim/calendar.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/bench_calendar_list: $(BENCH_CAL_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -DSIM_CALENDAR_UP_AT=4294967295u -DCAL_ROW='"ocasim-cal-list"' \
	  -o $@ bench/bench_calendar.c sim/calendar.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/bench_calendar_wheel2: $(BENCH_CAL_DEPS) bench/ref/alt/wheel2.c bench/ref/alt/sim/calendar.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Ibench/ref/alt -I. -DCAL_ROW='"ocasim-cal-wheel2"' \
	  -o $@ bench/bench_calendar.c bench/ref/alt/wheel2.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/bench_calendar_ladder: $(BENCH_CAL_DEPS) bench/ref/alt/ladder.c bench/ref/alt/sim/calendar.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Ibench/ref/alt -I. -DCAL_ROW='"ocasim-cal-ladder"' \
	  -o $@ bench/bench_calendar.c bench/ref/alt/ladder.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/bench_calendar_heap4: $(BENCH_CAL_DEPS) bench/ref/heap4/calendar.c bench/ref/heap4/sim/calendar.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Ibench/ref/heap4 -I. -DCAL_ROW='"ocasim-cal-heap4"' \
	  -o $@ bench/bench_calendar.c bench/ref/heap4/calendar.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/bench_calendar_heap8: $(BENCH_CAL_DEPS) bench/ref/heap4/calendar.c bench/ref/heap4/sim/calendar.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Ibench/ref/heap4 -I. -DSIM_CALENDAR_ARITY=8 -DCAL_ROW='"ocasim-cal-heap8"' \
	  -o $@ bench/bench_calendar.c bench/ref/heap4/calendar.c sim/engine.c $(BENCH_LIBS)

$(BENCH_DIR)/ns3_hold: bench/ns3_hold.cc bench/hold.h
	@mkdir -p $(dir $@)
	$(BENCH_CXX) $(BENCH_CXXFLAGS) -I. -o $@ bench/ns3_hold.cc $(BENCH_NS3_LIBS)

BENCH_CAL_VARIANTS := list wheel2 ladder heap4 heap8
BENCH_CAL_BINS := $(BENCH_DIR)/bench_calendar $(BENCH_CAL_VARIANTS:%=$(BENCH_DIR)/bench_calendar_%)

# The ns-3 driver is optional: without libns3-dev (or g++) the table says so
# and shows ocasim's rows alone.  Strict alternation: each size runs ocasim,
# then ns-3, then the candidates, before the next size (so a change of the
# machine's load falls on neighbouring rows alike).
bench-calendar: $(BENCH_CAL_BINS)
	@out=$(BENCH_DIR)/calendar.out; opts="--seconds $(BENCH_SECONDS) $(BENCH_DIST)"; \
	echo "bench-calendar: hold model, $(BENCH_DIST) increments, sizes $(BENCH_SIZES), $(BENCH_SECONDS) s per row (about two minutes)"; \
	: > $$out; \
	ns3=1; if ! $(MAKE) --no-print-directory -s $(BENCH_DIR)/ns3_hold > $(BENCH_DIR)/ns3_build.log 2>&1; then \
	  ns3=0; echo "NOTE ns-3 driver not built (libns3-dev or g++ missing? see $(BENCH_DIR)/ns3_build.log): ocasim rows only" >> $$out; \
	fi; \
	for n in $(BENCH_SIZES); do \
	  $(BENCH_DIR)/bench_calendar $$opts $$n >> $$out || echo "NOTE bench_calendar failed at N=$$n" >> $$out; \
	  if [ $$ns3 = 1 ]; then \
	    $(BENCH_DIR)/ns3_hold --max-n $(BENCH_NS3_MAX_N) $$opts $$n >> $$out || echo "NOTE ns3_hold failed at N=$$n" >> $$out; \
	  fi; \
	  for v in $(BENCH_CAL_VARIANTS); do \
	    $(BENCH_DIR)/bench_calendar_$$v --cal-only $$opts $$n >> $$out || echo "NOTE bench_calendar_$$v failed at N=$$n" >> $$out; \
	  done; \
	done; \
	awk -f bench/table.awk $$out

# bench-models: the discrete-event appliance model (des_run, as
# `ocasim run FILE --duration D --warmup W` calls it) on the 400G and 800G
# scenarios and the big cases of issue 18: the 800G what-if (DLWM off,
# network-centric: ports and drives saturate together), the 64-drive x
# 64-port box (bench/milan-64x64.yaml) and the 400G box at 4 KiB requests
# (~12 M requests per simulated second, so a short run).  One process per
# scenario, so peak RSS is that scenario's.  A row is
# NAME|FILE|DURATION|WARMUP|KEY=VALUE (the last may be empty).
# Knobs: BENCH_MODEL_DURATION (simulated seconds, warm-up included, of the
# 2 MiB rows), BENCH_MODEL_WARMUP.  Report only: never fails on timing.
BENCH_MODEL_DURATION ?= 2 s
BENCH_MODEL_WARMUP   ?= 0.1 s
BENCH_MODEL_ROWS := "400G|scenarios/rome-400g-nic-ktls.yaml|$(BENCH_MODEL_DURATION)|$(BENCH_MODEL_WARMUP)|" \
                    "800G|scenarios/reference/milan2022_strict_disk_silo.yaml|$(BENCH_MODEL_DURATION)|$(BENCH_MODEL_WARMUP)|" \
                    "800G-wi|scenarios/milan-800g-dlwm-off-network-centric.yaml|$(BENCH_MODEL_DURATION)|$(BENCH_MODEL_WARMUP)|" \
                    "64x64|bench/milan-64x64.yaml|1 s|0.1 s|" \
                    "400G-4K|scenarios/rome-400g-nic-ktls.yaml|0.02 s|0.002 s|workload.request_size=4 KiB"
BENCH_MODEL_PKGS := glib-2.0 gsl yaml-0.1 openssl json-glib-1.0

build/release/libocasim.a.bench-stamp: FORCE_BENCH_LIB
	@$(MAKE) --no-print-directory SANITIZE= build/release/libocasim.a

.PHONY: FORCE_BENCH_LIB
FORCE_BENCH_LIB:

$(BENCH_DIR)/bench_models: bench/bench_models.c bench/des_bench.h build/release/libocasim.a.bench-stamp
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. $(shell pkg-config --cflags $(BENCH_MODEL_PKGS) 2>/dev/null) -o $@ bench/bench_models.c \
	  build/release/libocasim.a $(shell pkg-config --libs $(BENCH_MODEL_PKGS) 2>/dev/null) -lm -lpthread

bench-models: $(BENCH_DIR)/bench_models
	@out=$(BENCH_DIR)/models.out; : > $$out; \
	echo "bench-models: ocasim run, one process per scenario (800G-wi: 800G what-if, 64x64: bench/milan-64x64.yaml, 400G-4K: 4 KiB requests)"; \
	for row in $(BENCH_MODEL_ROWS); do \
	  IFS='|'; set -- $$row; unset IFS; \
	  $(BENCH_DIR)/bench_models "$$1" "$$2" "$$3" "$$4" $${5:+"$$5"} >> $$out \
	    || echo "NOTE bench_models $$1 failed" >> $$out; \
	done; \
	awk -f bench/models_table.awk $$out

# bench-qnet-ps: the overloaded M/G/1-PS (offered load 10, ~2e5 jobs present at the end),
# best of BENCH_QNET_RUNS runs of the release `ocasim run`, loading included.  Target
# (issue 16): 20 000 s simulated in under 1 s of wall time.  Report only.
BENCH_QNET_RUNS ?= 3
BENCH_QNET_SCENARIO := bench/mg1-ps-overload.yaml

bench-qnet-ps:
	@$(MAKE) --no-print-directory SANITIZE= ocasim
	@mkdir -p $(BENCH_DIR)
	@best=; events=; for i in $$(seq $(BENCH_QNET_RUNS)); do \
	  t0=$$(date +%s%N); ./ocasim run $(BENCH_QNET_SCENARIO) > $(BENCH_DIR)/qnet-ps.out || { echo "NOTE ocasim run failed"; exit 1; }; \
	  t1=$$(date +%s%N); w=$$(( (t1 - t0) / 1000000 )); \
	  if [ -z "$$best" ] || [ $$w -lt $$best ]; then best=$$w; fi; \
	done; \
	events=$$(sed -n 's/.* batches, \([0-9]*\) events$$/\1/p' $(BENCH_DIR)/qnet-ps.out); \
	sim=$$(sed -n "s/^duration: *\"\([0-9]*\) s\"/\1/p" $(BENCH_QNET_SCENARIO)); \
	echo "bench-qnet-ps: ocasim run $(BENCH_QNET_SCENARIO) (overloaded M/G/1-PS, offered load 10), best of $(BENCH_QNET_RUNS)"; \
	printf '%-12s | %11s | %7s | %11s | %9s\n' scenario "simulated s" "wall s" "x real time" events; \
	awk -v sim=$$sim -v ms=$$best -v ev=$$events 'BEGIN { w = ms / 1000; if (w <= 0) w = 0.001; \
	  printf "%-12s | %11d | %7.3f | %10.0fx | %9d\n", "PS overload", sim, w, sim / w, ev; \
	  print "(wall covers loading and the whole run; target: 20000 s simulated in < 1 s)" }'

# bench-bound (issue 34): `ocasim bound` per call and a 1000-point bound sweep at -j 1
# (sweeps/bench-bound-1000.yaml), CPU time (bench/cputime.c: getrusage of the children), this
# build and a reference build alternated in BENCH_BOUND_PAIRS pairs. The reference is commit
# BENCH_BOUND_REF (default 9728551, the last before the bound's latency rewrite), checked out
# once as a detached git worktree in $(BENCH_DIR)/ref-<commit> and built there (release); without
# git or that commit (a dist tarball) the table has this build's rows alone. Report only.
BENCH_BOUND_REF   ?= 9728551
BENCH_BOUND_PAIRS ?= 5
BENCH_BOUND_CALLS ?= 20
BENCH_BOUND_REFDIR := $(BENCH_DIR)/ref-$(BENCH_BOUND_REF)

$(BENCH_DIR)/cputime: bench/cputime.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ bench/cputime.c

bench-bound: $(BENCH_DIR)/cputime
	@$(MAKE) --no-print-directory SANITIZE= ocasim
	@ref=; if [ -x $(BENCH_BOUND_REFDIR)/ocasim ] || { \
	    { [ -d $(BENCH_BOUND_REFDIR) ] || { git worktree prune && git worktree add --detach $(BENCH_BOUND_REFDIR) $(BENCH_BOUND_REF); }; } \
	      > $(BENCH_DIR)/ref-build.log 2>&1 && \
	    $(MAKE) --no-print-directory -C $(BENCH_BOUND_REFDIR) SANITIZE= MPI= ocasim >> $(BENCH_DIR)/ref-build.log 2>&1; }; then \
	  ref=$(BENCH_BOUND_REFDIR)/ocasim; \
	else \
	  echo "NOTE reference build $(BENCH_BOUND_REF) not made (no git, or no such commit? see $(BENCH_DIR)/ref-build.log): this build's rows only"; \
	fi; \
	PAIRS=$(BENCH_BOUND_PAIRS) CALLS=$(BENCH_BOUND_CALLS) OUT=$(BENCH_DIR)/bound.out \
	  sh bench/bench-bound.sh $(BENCH_DIR)/cputime ./ocasim $$ref

# memlat: the machine's load latency by working-set size and its read bandwidth
# (bench/memlat.c), the figures behind "What bounds the calendar" in bench/README.md.
$(BENCH_DIR)/memlat: bench/memlat.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ bench/memlat.c

# hold_count: a fixed number of holds, for valgrind's cachegrind (bench/hold_count.c).
$(BENCH_DIR)/hold_count: bench/hold_count.c bench/hold.h sim/calendar.c sim/calendar.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -o $@ bench/hold_count.c sim/calendar.c $(BENCH_LIBS)
