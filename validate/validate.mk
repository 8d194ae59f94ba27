# validate/validate.mk — targets of the validation mode (issue 4).
#   make validate-quick   ./ocasim validate --quick into build/validate-quick (CI: the
#                         mechanics are asserted, exit status != 0 on a mismatched body;
#                         timings and prediction errors are reported, never asserted)
#   make validate         the full run into build/validate (about 10 minutes on 2 cores)
#   make wrk-check        `ocasim serve` in each mode under wrk (whole files and a Range, 2 s
#                         each): only 2xx on both sides, no socket errors (CI; ~15 s)
#   make ktls-check       the kTLS serving path against Debian's kernel TLS in a QEMU guest
#                         (scripts/ktls/ktls-check.sh; CI; a few minutes under TCG)
.PHONY: validate-quick validate wrk-check ktls-check

validate-quick: $(BIN)
	./$(BIN) validate --quick --progress --out build/validate-quick

validate: $(BIN)
	./$(BIN) validate --progress --out build/validate

wrk-check: $(BIN)
	sh scripts/wrk-check.sh ./$(BIN)

ktls-check: $(BIN)
	sh scripts/ktls/ktls-check.sh ./$(BIN)
