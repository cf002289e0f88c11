# A parameter sweep the Makefile way: one target per configuration, run by `make -j`,
# results gathered into one CSV with the same columns as `cpss --sweep`.
#
#   make -f scripts/sweep.mk -j8 PROGRAM=fixtures/matmul.c \
#        PARAM1=packet-size VALUES1="8 16 32 64" PARAM2=link-delay VALUES2="1 2" OUT=sweep.csv
#
# Every configuration is one cpss process, so the same sweep scales over machines as a
# job array (see README, "Sweeps"). Variables: CPCC, CPSS (the tools), EXTRA (more cpss
# flags for every run), DIR (work folder).
CPCC    ?= target/release/cpcc
CPSS    ?= target/release/cpss
PROGRAM ?= fixtures/matmul.c
PARAM1  ?= packet-size
VALUES1 ?= 8 16 32 64
PARAM2  ?= link-delay
VALUES2 ?= 1 2
EXTRA   ?=
DIR     ?= sweep.d
OUT     ?= sweep.csv

COD := $(DIR)/program.cod
# One name per configuration: V1_V2 (values must not contain `_` or blanks).
CONFIGS := $(foreach a,$(VALUES1),$(foreach b,$(VALUES2),$(a)_$(b)))
ROWS    := $(addprefix $(DIR)/,$(addsuffix .row,$(CONFIGS)))

.PHONY: all clean
all: $(OUT)

$(COD): $(PROGRAM) | $(DIR)
	$(CPCC) -I fixtures/include $< -o $@

$(DIR):
	mkdir -p $@

# One configuration: the parameter values, then cpss's CSV data row.
$(DIR)/%.row: $(COD)
	@v1=$(word 1,$(subst _, ,$*)); v2=$(word 2,$(subst _, ,$*)); \
	$(CPSS) $(COD) --$(PARAM1) $$v1 --$(PARAM2) $$v2 $(EXTRA) --stats csv > $@.tmp; \
	tail -1 $@.tmp | sed "s/^/$$v1,$$v2,/" > $@ && rm -f $@.tmp

# Header from any one run, rows in configuration order (the order of `cpss --sweep`).
$(OUT): $(ROWS)
	@$(CPSS) $(COD) $(EXTRA) --stats csv | tail -2 | head -1 | sed "s/^/$(PARAM1),$(PARAM2),/" > $@.tmp
	@cat $(ROWS) >> $@.tmp && mv $@.tmp $@
	@echo "$(words $(ROWS)) configurations in $@"

clean:
	rm -rf $(DIR) $(OUT)
