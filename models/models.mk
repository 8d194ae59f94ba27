# models/models.mk — extra targets of the appliance model, each a subcommand of ./ocasim:
#   make reference       ocasim reference --des: bound mode and the DES of every published-result
#                        scenario vs the published figures
#   make fit             ocasim fit --write models/appliance/coeffs.def --json build/fit/fit.json: GSL
#                        least-squares fit of the shared coefficients, written as the data file the
#                        build reads, + identifiability, leave-one-out and leave-one-platform-out
#                        reports (tables on stdout, all of it in build/fit/fit.json)
#   make scenario-docs   ocasim schema --update: the generated tables of scenarios/README.md and README.md,
#                        and the JSON Schemas scenarios/schema/*.json (ocasim schema KIND --format json)
.PHONY: reference fit scenario-docs
reference: $(BIN)
	@./$(BIN) reference --des scenarios/reference

fit: $(BIN)
	@mkdir -p build/fit
	@./$(BIN) fit --write models/appliance/coeffs.def --json build/fit/fit.json scenarios/reference

scenario-docs: $(BIN)
	@./$(BIN) schema --update scenarios/README.md README.md && echo "scenarios/README.md, README.md: generated tables regenerated"
	@for k in appliance platform queueing_network sweep; do ./$(BIN) schema $$k --format json -o scenarios/schema/$$k.json || exit 1; done; \
	  echo "scenarios/schema/*.json: JSON Schemas regenerated"
