# examples/diagnose/rules.mk - the planted bottlenecks of `make
# example-diagnose` (examples/diagnose/), included by the Makefile: rpcgen
# at build time (-M) into $(BUILD)/examples/diagnose/gen/, as
# examples/rules.mk does for Figure 1; nothing generated is committed.
# diag-proxy is plain C (not RPC).

DIAG_GEN := $(BUILD)/examples/diagnose/gen
DIAG_CFLAGS := $(CFLAGS) $(BASE_CFLAGS) $(TIRPC_CFLAGS) -I$(DIAG_GEN) \
	-Iexamples/diagnose
DIAG_GEN_CFLAGS := $(DIAG_CFLAGS) -Wno-unused-parameter \
	-Wno-unused-variable -Wno-cast-function-type
DIAG_LIBS := $(TIRPC_LIBS) -lpthread

$(DIAG_GEN)/diag.x: examples/diagnose/diag.x
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# rpcgen's part by flag: header, xdr, client stubs, server dispatch
$(DIAG_GEN)/diag.h: $(DIAG_GEN)/diag.x
	@echo "  RPCGEN  $<"
	$(Q)cd $(DIAG_GEN) && rm -f diag.h && rpcgen -M -h -o diag.h diag.x
$(DIAG_GEN)/diag_xdr.c: DIAG_RPCGEN := -c
$(DIAG_GEN)/diag_clnt.c: DIAG_RPCGEN := -l
$(DIAG_GEN)/diag_svc.c: DIAG_RPCGEN := -m
$(DIAG_GEN)/diag_%.c: $(DIAG_GEN)/diag.x $(DIAG_GEN)/diag.h
	$(Q)cd $(DIAG_GEN) && rm -f $(notdir $@) && \
		rpcgen -M $(DIAG_RPCGEN) -o $(notdir $@) diag.x

$(DIAG_GEN)/diag_%.o: $(DIAG_GEN)/diag_%.c
	@echo "  CC      $(notdir $<)"
	$(Q)$(CC) $(DIAG_GEN_CFLAGS) -c -o $@ $<

$(BUILD)/examples/diagnose/%.o: examples/diagnose/%.c $(DIAG_GEN)/diag.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(DIAG_CFLAGS) -c -o $@ $<

$(BUILD)/examples/diag-server: $(BUILD)/examples/diagnose/diag-server.o \
		$(addprefix $(DIAG_GEN)/,diag_svc.o diag_clnt.o diag_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(DIAG_LIBS)

$(BUILD)/examples/diag-client: $(BUILD)/examples/diagnose/diag-client.o \
		$(addprefix $(DIAG_GEN)/,diag_clnt.o diag_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(DIAG_LIBS)

$(BUILD)/examples/diag-proxy: $(BUILD)/examples/diagnose/diag-proxy.o
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ -lpthread

.SECONDARY: $(addprefix $(DIAG_GEN)/,diag.x diag.h diag_xdr.c diag_clnt.c \
	diag_svc.c)

EXAMPLE_PROGS += $(BUILD)/examples/diag-server $(BUILD)/examples/diag-client \
	$(BUILD)/examples/diag-proxy
