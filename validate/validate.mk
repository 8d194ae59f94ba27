# validate/validate.mk — targets of the validation mode (issue 4).
#   make validate-quick   ./ocasim validate --quick into build/validate-quick (CI: the
#                         mechanics are asserted, exit status != 0 on a mismatched body;
#                         timings and prediction errors are reported, never asserted)
#   make validate         the full run into build/validate (about 10 minutes on 2 cores)
.PHONY: validate-quick validate

validate-quick: $(BIN)
	./$(BIN) validate --quick --out build/validate-quick

validate: $(BIN)
	./$(BIN) validate --out build/validate
