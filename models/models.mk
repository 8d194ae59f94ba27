# models/models.mk — extra targets of the appliance model.
#   make reference   bound mode (and the DES) of every published-result scenario vs the published figures
#   make fit         GSL least-squares fit of the shared coefficients + leave-one-out report
MODEL_TOOLS := $(BUILD)/tools/ocasim-reference $(BUILD)/tools/ocasim-fit

$(BUILD)/tools/ocasim-%: $(BUILD)/models/tools/ocasim_%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

.PHONY: reference fit
reference: $(BUILD)/tools/ocasim-reference
	@$(BUILD)/tools/ocasim-reference --des scenarios/reference

fit: $(BUILD)/tools/ocasim-fit
	@$(BUILD)/tools/ocasim-fit scenarios/reference

-include $(wildcard $(BUILD)/models/tools/*.d)

.PHONY: scenario-docs
scenario-docs: $(BUILD)/tools/ocasim-scenario_doc
	@$(BUILD)/tools/ocasim-scenario_doc scenarios/README.md README.md && echo "scenarios/README.md, README.md: generated tables regenerated"
