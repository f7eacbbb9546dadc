# examples/rules.mk - the rpcgen-built example of Figure 1 of the CPU paper
# (examples/figure1/), included by the Makefile.  It adds its programs to
# EXAMPLE_PROGS and makes `make example`, `make test` and `make bench`
# build them (run-example.sh and test/check-e2e-figure1.c run them).
#
# Like test/rpc/rules.mk: rpcgen runs at build time in MT-safe mode (-M)
# into $(BUILD)/examples/figure1/gen/ (figure1.h, figure1_xdr.c,
# figure1_clnt.c with foo_1() ..., figure1_svc.c with the dispatch
# function fig1_prog_1() and no main); nothing generated is committed.
# The sources live in a directory of their own so that the Makefile's
# one-file examples rule ($(BUILD)/examples/%: examples/%.c) skips them.

FIG1_GEN := $(BUILD)/examples/figure1/gen
FIG1_CFLAGS := $(CFLAGS) $(BASE_CFLAGS) $(TIRPC_CFLAGS) -I$(FIG1_GEN) \
	-Iexamples/figure1
# rpcgen's output is not -Wextra clean (unused rqstp, transp, ...)
FIG1_GEN_CFLAGS := $(FIG1_CFLAGS) -Wno-unused-parameter \
	-Wno-unused-variable -Wno-cast-function-type
FIG1_LIBS := $(TIRPC_LIBS) -lpthread

# rpcgen names the header it includes after its input: run it in the
# output directory on a copy, so that the code says #include "figure1.h".
$(FIG1_GEN)/figure1.x: examples/figure1/figure1.x
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(FIG1_GEN)/figure1.h: $(FIG1_GEN)/figure1.x
	@echo "  RPCGEN  $<"
	$(Q)cd $(FIG1_GEN) && rm -f figure1.h && rpcgen -M -h -o figure1.h figure1.x

$(FIG1_GEN)/figure1_xdr.c: $(FIG1_GEN)/figure1.x $(FIG1_GEN)/figure1.h
	$(Q)cd $(FIG1_GEN) && rm -f figure1_xdr.c && rpcgen -M -c -o figure1_xdr.c figure1.x

$(FIG1_GEN)/figure1_clnt.c: $(FIG1_GEN)/figure1.x $(FIG1_GEN)/figure1.h
	$(Q)cd $(FIG1_GEN) && rm -f figure1_clnt.c && rpcgen -M -l -o figure1_clnt.c figure1.x

$(FIG1_GEN)/figure1_svc.c: $(FIG1_GEN)/figure1.x $(FIG1_GEN)/figure1.h
	$(Q)cd $(FIG1_GEN) && rm -f figure1_svc.c && rpcgen -M -m -o figure1_svc.c figure1.x

$(FIG1_GEN)/figure1_%.o: $(FIG1_GEN)/figure1_%.c
	@echo "  CC      $(notdir $<)"
	$(Q)$(CC) $(FIG1_GEN_CFLAGS) -c -o $@ $<

$(BUILD)/examples/figure1/%.o: examples/figure1/%.c $(FIG1_GEN)/figure1.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(FIG1_CFLAGS) -c -o $@ $<

$(BUILD)/examples/figure1-server: $(BUILD)/examples/figure1/figure1-server.o \
		$(addprefix $(FIG1_GEN)/,figure1_svc.o figure1_clnt.o figure1_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(FIG1_LIBS)

$(BUILD)/examples/figure1-client: $(BUILD)/examples/figure1/figure1-client.o \
		$(addprefix $(FIG1_GEN)/,figure1_clnt.o figure1_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(FIG1_LIBS)

.SECONDARY: $(addprefix $(FIG1_GEN)/,figure1.x figure1.h figure1_xdr.c \
	figure1_clnt.c figure1_svc.c)

EXAMPLE_PROGS += $(BUILD)/examples/figure1-server $(BUILD)/examples/figure1-client

# run-example.sh runs them; the Figure 1 suite of `make test` too
example test: $(EXAMPLE_PROGS)
