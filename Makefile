# ocasim — plain Makefile, pkg-config for every library.
#   make              build ./ocasim (release, -O2)
#   make test         build and run every Check suite in tests/
#   make SANITIZE=1 test   the same under AddressSanitizer + UBSan (objects in build/asan)
#   make MPI=1        build/mpi/ocasim, built with mpicc: `ocasim sweep` spreads points over mpirun's ranks
#   make bench        engine and model benchmarks (report only, never fail on timing)
#   make deps         install the Debian packages the build needs (see scripts/deps.sh)
#   make reference    every published result: model (bound and DES) vs published (./ocasim reference, models/models.mk)
#   make fit          refit the shared coefficients into models/coeffs.def, with the leave-one-out report (./ocasim fit)
#   make scenario-docs  regenerate scenarios/README.md and the README's reference table (./ocasim schema --update)
#   make validate-quick / validate / wrk-check   the validation mode (validate/validate.mk)
#   make format / format-check   apply / check the house style (.clang-format; CI runs format-check)
#   make golden-update   rewrite the golden outputs after an intended change (tests/tests.mk)
#
# Sources are picked up by wildcard: a new sim/*.c, models/*.c, validate/*.c or
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

LIB_SRC  := $(sort $(wildcard sim/*.c models/*.c validate/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libocasim.a
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test check-tests bench deps clean
.SECONDARY:
all: $(BIN)

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

# Every suite runs even when one fails; the target fails if any did.
# OCASIM_BIN lets tests drive the command line (exit status, error positions).
test: $(TEST_BIN) $(BIN)
	@fail=0; for t in $(TEST_BIN); do \
	  echo "== $$t"; OCASIM_BIN=$(abspath $(BIN)) $$t || fail=1; \
	done; \
	if [ $$fail -ne 0 ]; then echo "make test: some suites FAILED"; exit 1; fi; \
	echo "make test: all suites passed"

deps:
	@sh scripts/deps.sh

# The house style (.clang-format, clang-format 14). bench/ref/ keeps earlier code verbatim.
FORMAT_SRC := $(sort $(wildcard */*.[ch] */*/*.[ch]))
FORMAT_SRC := $(filter-out build/% bench/ref/%,$(FORMAT_SRC))
CLANG_FORMAT ?= clang-format
.PHONY: format format-check
format:
	@$(CLANG_FORMAT) -i $(FORMAT_SRC)
format-check:
	@$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files in the house style"

clean:
	rm -rf build ocasim

-include $(wildcard */*.mk)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_SUPPORT_OBJ:.o=.d)
