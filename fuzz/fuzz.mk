# fuzz/fuzz.mk — `make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="scenario units"]`: libFuzzer
# harnesses of the parsers that read hostile input (fuzz/fuzz_*.c, fuzz/README.md).
#
# Everything is built with clang-14 -fsanitize=fuzzer,address,undefined into build/fuzz/
# (the library objects with fuzzer-no-link), never by `make` or `make test`.  Each target then
# runs for FUZZ_SECONDS (default 60) from its seeds, with its dictionary (`make -jN fuzz`: N
# targets at a time): the working corpus build/fuzz/corpus/T/ grows across runs, crashes land
# in build/fuzz/artifacts/T/, the log in build/fuzz/T.log.  The target fails if any harness found a crash, a leak or a timeout.
# Without clang-14 (or its libFuzzer runtime) it says so and skips: `make deps` installs it.
#   scenario  the loader, platform include, appliance + demand + bound, queueing network
#   units     sim_units_parse and its format round trip
#   set       --set overrides on every scenario, then the binding
#   http      the request-line, header and Range parser of ocasim serve
#   sweep     the sweep file loader (sim/sweep.c, cli/sweep_appliance.c)

FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= scenario units set http sweep
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang, unlike gcc, warns of unused static inline functions of a macro-made type (sim/heap-inl.h)
FUZZ_CFLAGS  := -O1 -g -std=c11 -D_GNU_SOURCE $(WARN) -Wno-unused-function -I. $(PKG_CFLAGS) -MMD -MP $(FUZZ_SAN)
FUZZ_LIB_SRC := $(sort $(wildcard sim/*.c models/*.c models/*/*.c)) serve/http.c cli/sweep_appliance.c
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
# whether $(FUZZ_CC) links a libFuzzer program: asked by the recipe, so that other targets never run it
FUZZ_PROBE   := command -v $(FUZZ_CC) >/dev/null 2>&1 && echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' | \
                  $(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null

# seeds: the repository's scenarios and bad inputs; sweeps with `scenario:` as the private
# directory names it (fuzz/fuzz_common.h); small hand-made seeds for the others (fuzz/seeds/)
FUZZ_SEEDS_scenario := scenarios scenarios/reference tests/data/bad tests/data/conf
FUZZ_SEEDS_set      := fuzz/seeds/set tests/data/fuzz/set
FUZZ_SEEDS_units    := fuzz/seeds/units
FUZZ_SEEDS_http     := fuzz/seeds/http
FUZZ_SEEDS_sweep    := $(FUZZ_DIR)/seeds/sweep
FUZZ_DICT_http      := fuzz/http.dict
FUZZ_DICT_default   := fuzz/yaml.dict

.PHONY: fuzz fuzz-build fuzz-run
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/fuzz/fuzz_common.o: CFLAGS_FUZZ_EXTRA := -DFUZZ_SRC_DIR=\"$(abspath .)\"
$(FUZZ_DIR)/obj/fuzz/%.o: fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(CFLAGS_FUZZ_EXTRA) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/libocasim-fuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz/fuzz_%.o $(FUZZ_DIR)/obj/fuzz/fuzz_common.o $(FUZZ_DIR)/libocasim-fuzz.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) -lm -lpthread

$(FUZZ_DIR)/seeds/sweep: $(wildcard sweeps/*.yaml tests/data/sweep/*.yaml tests/data/sweep/bad/*.yaml)
	@rm -rf $@ && mkdir -p $@
	@for f in $^; do sed -E 's#^scenario: *(\.\./)+scenarios/#scenario: ../scenarios/#' $$f > $@/$$(basename $$(dirname $$f))-$$(basename $$f); done

fuzz:
	@if $(FUZZ_PROBE); then $(MAKE) --no-print-directory fuzz-run; else \
	  echo "make fuzz: skipped: $(FUZZ_CC) with libFuzzer (clang-14, libclang-rt-14-dev) not found; make deps installs it"; fi

fuzz-build: $(FUZZ_BINS) $(FUZZ_SEEDS_sweep)
# Each target runs in its own rule, so that `make -jN fuzz` runs N of them side by side (CI: one
# per CPU); every target runs even when another fails, and fuzz-run fails if any did.
FUZZ_RUNS   := $(FUZZ_TARGETS:%=fuzz-run-%)
FUZZ_FAILED := $(FUZZ_DIR)/failed
.PHONY: $(FUZZ_RUNS)
fuzz-run: fuzz-build
	@rm -rf $(FUZZ_FAILED) && mkdir -p $(FUZZ_FAILED)
	@$(MAKE) --no-print-directory -Otarget $(FUZZ_RUNS)
	@if [ -n "$$(ls $(FUZZ_FAILED))" ]; then echo "make fuzz: FAILED: $$(ls $(FUZZ_FAILED) | tr '\n' ' ')"; exit 1; fi
$(FUZZ_RUNS): fuzz-run-%:
	@t=$*; case $$t in scenario) s="$(FUZZ_SEEDS_scenario)";; set) s="$(FUZZ_SEEDS_set)";; units) s="$(FUZZ_SEEDS_units)";; \
	  http) s="$(FUZZ_SEEDS_http)";; sweep) s="$(FUZZ_SEEDS_sweep)";; esac; \
	d=$(FUZZ_DICT_default); [ $$t = http ] && d=$(FUZZ_DICT_http); \
	mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/artifacts/$$t; \
	echo "== fuzz_$$t: $(FUZZ_SECONDS) s, seeds $$s, dictionary $$d"; \
	if $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	     -dict=$$d -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t/ \
	     $(FUZZ_DIR)/corpus/$$t $$s > $(FUZZ_DIR)/$$t.log 2>&1; then \
	  grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' $(FUZZ_DIR)/$$t.log | tail -1; \
	  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' $(FUZZ_DIR)/$$t.log | tr '\n' ' '; echo; \
	else \
	  echo "fuzz_$$t: FAILED (crash, leak or timeout): see $(FUZZ_DIR)/$$t.log and $(FUZZ_DIR)/artifacts/$$t/"; \
	  grep -E 'ERROR|SUMMARY|fuzz_|CRITICAL' $(FUZZ_DIR)/$$t.log | head -5; touch $(FUZZ_FAILED)/$$t; \
	fi

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BINS:$(FUZZ_DIR)/fuzz_%=$(FUZZ_DIR)/obj/fuzz/fuzz_%.d) $(FUZZ_DIR)/obj/fuzz/fuzz_common.d
