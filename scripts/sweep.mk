# A parameter sweep the Makefile way: one target per configuration, run by `make -j`,
# results gathered into one CSV with the same columns as `cpss --sweep`.
#
#   make -f scripts/sweep.mk -j8 PROGRAM=fixtures/matmul.c \
#        PARAM1=packet-size VALUES1="8 16 32 64" PARAM2=link-delay VALUES2="1 2" OUT=sweep.csv
#
# Every configuration is one cpss process, so the same sweep scales over machines as a
# job array (see README, "Sweeps"). Variables: CPCC, CPSS, CPPERF (the tools), EXTRA (more
# cpss flags for every run; no single quotes), DIR (work folder).
#
# Regression check, as a CI job would run it: keep one sweep's statistics as the baseline,
# then check a later sweep (another build, another network parameter, another program
# version) against it with `cpperf compare`, configuration by configuration:
#
#   make -f scripts/sweep.mk -j8 baseline            # copies DIR/*.csv to BASELINE
#   make -f scripts/sweep.mk -j8 check               # exit 2 from make if any regressed
#
# BASELINE (default sweep.baseline) is the folder of kept statistics, TOLERANCE (default
# 2%) the allowed change, METRICS (default: every metric) a comma list for --metrics. Each
# configuration's comparison table is left in DIR/V1_V2.check (or .failed).
CPCC    ?= target/release/cpcc
CPSS    ?= target/release/cpss
CPPERF  ?= target/release/cpperf
PROGRAM ?= fixtures/matmul.c
PARAM1  ?= packet-size
VALUES1 ?= 8 16 32 64
PARAM2  ?= link-delay
VALUES2 ?= 1 2
EXTRA   ?=
DIR     ?= sweep.d
OUT     ?= sweep.csv
BASELINE  ?= sweep.baseline
TOLERANCE ?= 2%
METRICS   ?=

COD := $(DIR)/program.cod
# One name per configuration: V1_V2 (values must not contain `_` or blanks).
CONFIGS := $(foreach a,$(VALUES1),$(foreach b,$(VALUES2),$(a)_$(b)))
ROWS    := $(addprefix $(DIR)/,$(addsuffix .row,$(CONFIGS)))
STATS   := $(ROWS:.row=.csv)
CHECKS  := $(ROWS:.row=.check)

.PHONY: all clean baseline check FORCE
all: $(OUT)

$(COD): $(PROGRAM) $(CPCC) | $(DIR)
	$(CPCC) -I fixtures/include $< -o $@

$(DIR):
	mkdir -p $@

# The flags every run shares, and which cpss runs them: the stamp is rewritten only
# when they change, so a changed EXTRA or parameter (or a rebuilt cpss, a prerequisite
# below) runs every configuration again instead of reusing old statistics.
FLAGS := $(CPSS) --$(PARAM1) --$(PARAM2) $(EXTRA)
$(DIR)/flags.stamp: FORCE | $(DIR)
	@echo '$(FLAGS)' | cmp -s - $@ || echo '$(FLAGS)' > $@
FORCE:

# One configuration: its statistics CSV (cpss's header and row; the program's output
# goes to stderr), kept for `check`, written under a temporary name and renamed when
# complete.
$(DIR)/%.csv: $(COD) $(CPSS) $(DIR)/flags.stamp
	@v1=$(word 1,$(subst _, ,$*)); v2=$(word 2,$(subst _, ,$*)); \
	$(CPSS) $(COD) --$(PARAM1) $$v1 --$(PARAM2) $$v2 $(EXTRA) --stats csv > $@.tmp && mv $@.tmp $@

# Its row of the gathered CSV: the parameter values, then cpss's data row.
$(DIR)/%.row: $(DIR)/%.csv
	@v1=$(word 1,$(subst _, ,$*)); v2=$(word 2,$(subst _, ,$*)); \
	tail -1 $< | sed "s/^/$$v1,$$v2,/" > $@.tmp && mv $@.tmp $@

# Header from any one run, rows in configuration order (the order of `cpss --sweep`).
$(OUT): $(ROWS)
	@$(CPSS) $(COD) $(EXTRA) --stats csv | tail -2 | head -1 | sed "s/^/$(PARAM1),$(PARAM2),/" > $@.tmp
	@cat $(ROWS) >> $@.tmp && mv $@.tmp $@
	@echo "$(words $(ROWS)) configurations in $@"

baseline: $(STATS)
	mkdir -p $(BASELINE)
	cp $(STATS) $(BASELINE)/
	@echo "$(words $(STATS)) configurations kept in $(BASELINE)"

check: $(CHECKS)
	@echo "$(words $(CHECKS)) configurations within $(TOLERANCE) of $(BASELINE)"

# cpperf compare exits 1 on a regression: the table goes to .failed and make stops.
$(DIR)/%.check: $(DIR)/%.csv $(BASELINE)/%.csv
	@if $(CPPERF) compare $(BASELINE)/$*.csv $< --tolerance $(TOLERANCE) \
	    $(if $(METRICS),--metrics $(METRICS)) > $(DIR)/$*.failed; then \
	  mv $(DIR)/$*.failed $@; \
	else \
	  echo "$*: regression against $(BASELINE)/$*.csv"; cat $(DIR)/$*.failed; exit 1; \
	fi

clean:
	rm -rf $(DIR) $(OUT)
