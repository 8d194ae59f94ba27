# ocasim — plain Makefile, pkg-config for every library.
#   make              build ./ocasim (release, -O2)
#   make test         build and run every Check suite in tests/ (TEST_JOBS at a time, default one per CPU)
#   make SANITIZE=1 test   the same under AddressSanitizer + UBSan (objects in build/asan)
#   make MPI=1        build/mpi/ocasim, built with mpicc: `ocasim sweep` spreads points over mpirun's ranks
#   make bench        engine and model benchmarks (report only, never fail on timing)
#   make deps         install the Debian packages the build needs (see scripts/deps.sh)
#   make reference    every published result: model (bound and DES) vs published (./ocasim reference, models/models.mk)
#   make fit          refit the shared coefficients into models/appliance/coeffs.def, with the leave-one-out report (./ocasim fit)
#   make scenario-docs  regenerate scenarios/README.md and the README's reference table (./ocasim schema --update)
#   make validate-quick / validate / wrk-check   the validation mode (validate/validate.mk)
#   make format / format-check   apply / check the house style (.clang-format; CI runs format-check); format-check
#                also holds the comment limits (scripts/check-comments.py: preambles, .doc strings, 130 columns)
#   make golden-update   rewrite the byte-exact golden outputs after an intended change (tests/tests.mk)
#   make figures-update  rewrite tests/figures.csv, every scenario's figures, and print what moved
#   make install [PREFIX=/usr/local] [DESTDIR=]   the binary, man page, bash completion, scenarios
#                and platforms under $(PREFIX)/share/ocasim; make uninstall removes them
#   make dist    build/ocasim-VERSION.tar.gz (with a VERSION file), which builds without git
#   make install-check   install into a temporary DESTDIR, run the installed binary, uninstall,
#                and build the dist tarball unpacked in a temporary directory (CI)
#
# Sources are picked up by wildcard: a new sim/*.c, models/*/*.c, serve/*.c, validate/*.c or
# cli/*.c joins the build, a new tests/test_*.c becomes its own test binary.
# Extra targets of a folder live in that folder's *.mk file, included below.

PKGS      := glib-2.0 gsl yaml-0.1 openssl json-glib-1.0
CHECK_PKG := check
CC        ?= cc

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags $(CHECK_PKG) 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs $(CHECK_PKG) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -I. $(PKG_CFLAGS) -MMD -MP
LDLIBS  += $(PKG_LIBS) -lm -lpthread

ifeq ($(SANITIZE),1)
  BUILD   := build/asan
  CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined
  BIN     := $(BUILD)/ocasim
else ifeq ($(MPI),1)
  CC      := mpicc
  BUILD   := build/mpi
  CFLAGS  += -DOCASIM_MPI
  BIN     := $(BUILD)/ocasim
else
  BUILD   := build/release
  BIN     := ocasim
endif

LIB_SRC  := $(sort $(wildcard sim/*.c models/*.c models/*/*.c serve/*.c validate/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libocasim.a
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test check-tests bench deps clean FORCE
.SECONDARY:
all: $(BIN)

# The version (scripts/version.sh: a release tarball's VERSION file, or git describe) and the
# installed data directory, in headers rewritten only when they change: only cli/common.o
# recompiles when one does (make install PREFIX=... rebuilds it for its DATADIR).
PREFIX  ?= /usr/local
DATADIR ?= $(PREFIX)/share/ocasim
VERSION_H := build/version.h
PATHS_H   := build/paths.h
$(VERSION_H): FORCE
	@sh scripts/header.sh $@ OCASIM_VERSION_STRING "$$(sh scripts/version.sh)"
$(PATHS_H): FORCE
	@sh scripts/header.sh $@ OCASIM_DATADIR "$(DATADIR)"
$(BUILD)/cli/common.o: $(VERSION_H) $(PATHS_H)

# One GLib log domain per folder (G_MESSAGES_DEBUG=ocasim-sim, ...; cli/common.h).
$(BUILD)/sim/%.o: CFLAGS += -DG_LOG_DOMAIN=\"ocasim-sim\"
$(BUILD)/models/%.o: CFLAGS += -DG_LOG_DOMAIN=\"ocasim-models\"
$(BUILD)/serve/%.o: CFLAGS += -DG_LOG_DOMAIN=\"ocasim-serve\"
$(BUILD)/validate/%.o: CFLAGS += -DG_LOG_DOMAIN=\"ocasim-validate\"
$(BUILD)/cli/%.o: CFLAGS += -DG_LOG_DOMAIN=\"ocasim-cli\"

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_SUPPORT_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIB) $(LDLIBS) $(CHECK_LIBS)

check-tests: $(TEST_BIN) $(BIN)

# Every suite runs even when one fails; the target fails if any did.  The suites run side by
# side, TEST_JOBS at a time (default: one per CPU; the -j of the calling make when it has one),
# the longest first, each suite's output printed whole when it ends (-Otarget) with its wall
# time.  OCASIM_BIN lets tests drive the command line (exit status, error positions).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_LONG := test_metamorphic test_validate_server test_figures test_golden test_appliance_fit test_appliance_capacity
TEST_ORDER := $(filter $(TEST_LONG:%=$(BUILD)/tests/%),$(TEST_BIN)) $(filter-out $(TEST_LONG:%=$(BUILD)/tests/%),$(TEST_BIN))
TEST_RUN := $(TEST_ORDER:%=%.run)
TEST_FAILED := $(BUILD)/tests/failed
# Check's per-test timeouts (4 s by default, more where a tcase sets it) only catch a hang: speed
# targets live in make bench. Under the sanitizers (2-5x slower) on a loaded 2-core CI machine a
# long test ran past 4 s, so the timeouts scale there (Check's CK_TIMEOUT_MULTIPLIER; one given in
# the environment wins).
CK_TIMEOUT_MULTIPLIER ?= $(if $(filter 1,$(SANITIZE)),4,1)
export CK_TIMEOUT_MULTIPLIER
.PHONY: $(TEST_RUN)
test: $(TEST_BIN) $(BIN)
	@rm -rf $(TEST_FAILED) && mkdir -p $(TEST_FAILED)
	@$(MAKE) --no-print-directory -Otarget $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS)) $(TEST_RUN)
	@if [ -n "$$(ls $(TEST_FAILED))" ]; then \
	  for f in $(TEST_FAILED)/*; do echo "== $${f##*/} failed; its failure lines:"; \
	    grep -E ':[FE]:' "$$f" | head -20; echo "== and its last lines:"; tail -n 15 "$$f"; done; \
	  echo "make test: FAILED: $$(ls $(TEST_FAILED) | tr '\n' ' ')"; exit 1; fi; \
	echo "make test: all $(words $(TEST_BIN)) suites passed"
# each suite's output goes to a log as well; a failed suite's log is kept in $(TEST_FAILED) and
# its failure lines are printed again at the end, where a CI log's tail shows them
$(TEST_RUN): %.run: %
	@t0=$$(date +%s.%N); echo "== $*"; OCASIM_BIN=$(abspath $(BIN)) $* > $*.log 2>&1; rc=$$?; cat $*.log; \
	if [ $$rc -ne 0 ]; then cp $*.log $(TEST_FAILED)/$(notdir $*); fi; \
	echo "== $(notdir $*): $$(awk "BEGIN { printf \"%.1f\", $$(date +%s.%N) - $$t0 }") s"

deps:
	@sh scripts/deps.sh

# Who calls whom across modules (nm of the objects): fails on an arrow against cli -> validate ->
# serve -> models -> sim or on a call cycle not listed in scripts/layers-known-cycles.txt (issue 31);
# then docs/architecture.md's "Where to add" (scripts/check-where-to-add.py: the component list).
.PHONY: check-layers
check-layers: $(LIB) $(CLI_OBJ)
	@python3 scripts/check-layers.py --self-test && python3 scripts/check-layers.py $(BUILD)
	@python3 scripts/check-where-to-add.py --self-test && python3 scripts/check-where-to-add.py $(BUILD)

# The house style (.clang-format, clang-format 14). bench/ref/ keeps earlier code verbatim.
FORMAT_SRC := $(sort $(wildcard */*.[ch] */*/*.[ch]))
FORMAT_SRC := $(filter-out build/% bench/ref/%,$(FORMAT_SRC))
CLANG_FORMAT ?= clang-format
.PHONY: format format-check
format:
	@$(CLANG_FORMAT) -i $(FORMAT_SRC)
format-check:
	@$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files in the house style"
	@python3 scripts/check-comments.py --self-test && python3 scripts/check-comments.py $(FORMAT_SRC)

clean:
	rm -rf build ocasim

# ---- install, uninstall, dist ----------------------------------------------------------
# Layout under $(DATADIR) ($(PREFIX)/share/ocasim): scenarios/ is the source tree's scenarios/
# (scenario files, README.md, reference/, platforms/, schema/), so that includes and the
# editors' schema lines resolve as in the source tree; platforms/ (a link to
# scenarios/platforms) is where a platform include not found beside its scenario nor in the
# current directory is looked up (cli/common.h, cli_datadir()).
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install
SCENARIO_DIRS := reference platforms schema
.PHONY: install uninstall dist install-check
install: ocasim
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	  $(addprefix $(DESTDIR)$(DATADIR)/scenarios/,$(SCENARIO_DIRS))
	$(INSTALL) -m 755 ocasim $(DESTDIR)$(BINDIR)/ocasim
	$(INSTALL) -m 644 docs/ocasim.1 $(DESTDIR)$(MANDIR)/man1/ocasim.1
	$(INSTALL) -m 644 scripts/ocasim-completion.bash $(DESTDIR)$(BASHCOMPDIR)/ocasim
	$(INSTALL) -m 644 scenarios/*.yaml scenarios/README.md $(DESTDIR)$(DATADIR)/scenarios/
	for d in $(SCENARIO_DIRS); do $(INSTALL) -m 644 scenarios/$$d/* $(DESTDIR)$(DATADIR)/scenarios/$$d/ || exit 1; done
	ln -sfn scenarios/platforms $(DESTDIR)$(DATADIR)/platforms

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ocasim $(DESTDIR)$(MANDIR)/man1/ocasim.1 $(DESTDIR)$(BASHCOMPDIR)/ocasim
	rm -f $(DESTDIR)$(DATADIR)/platforms
	rm -rf $(DESTDIR)$(DATADIR)/scenarios
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

# The tracked files of the working tree and a VERSION file (scripts/version.sh reads it first).
dist:
	@command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || { echo "make dist: needs a git checkout"; exit 2; }
	@v=$$(sh scripts/version.sh); d=build/dist/ocasim-$$v; rm -rf $$d && mkdir -p $$d && \
	  git ls-files -z | xargs -0 tar -cf - | tar -xf - -C $$d && echo "$$v" > $$d/VERSION && \
	  tar -czf build/ocasim-$$v.tar.gz -C build/dist ocasim-$$v && echo "make dist: build/ocasim-$$v.tar.gz"

install-check: ocasim
	@sh scripts/install-check.sh

-include $(wildcard */*.mk)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_SUPPORT_OBJ:.o=.d)
