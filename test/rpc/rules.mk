# test/rpc/rules.mk - the rpcgen-generated RPC test programs, included by
# the Makefile (which declares RPC_PROGS and builds them for `make test`
# and `make bench`).
#
# rpcgen runs at build time, in MT-safe mode (-M: the stubs take the
# result buffer from the caller, so client threads can share nothing),
# into $(BUILD)/test/rpc/gen/: X.h, X_xdr.c, X_clnt.c (say_it_1(), ...)
# and X_svc.c (the dispatch function, demo_prog_1(), without a main: the
# programs bring their own serving loop).  Nothing generated is committed.

RPC_GEN := $(BUILD)/test/rpc/gen
RPC_XS := $(wildcard test/rpc/*.x)
RPC_HDRS := $(RPC_XS:test/rpc/%.x=$(RPC_GEN)/%.h)
RPC_CFLAGS := $(CFLAGS) $(BASE_CFLAGS) $(TIRPC_CFLAGS) -I$(RPC_GEN) -Itest/rpc
# rpcgen's output is not -Wextra clean (unused rqstp, transp, ...)
RPC_GEN_CFLAGS := $(RPC_CFLAGS) -Wno-unused-parameter -Wno-unused-variable \
	-Wno-cast-function-type
RPC_LIBS := $(TIRPC_LIBS) -lpthread

# rpcgen names the header it includes after its input: run it in the
# output directory on a copy, so that the code says #include "demo.h".
$(RPC_GEN)/%.x: test/rpc/%.x
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(RPC_GEN)/%.h: $(RPC_GEN)/%.x
	@echo "  RPCGEN  $<"
	$(Q)cd $(RPC_GEN) && rm -f $*.h && rpcgen -M -h -o $*.h $*.x

$(RPC_GEN)/%_xdr.c: $(RPC_GEN)/%.x $(RPC_GEN)/%.h
	$(Q)cd $(RPC_GEN) && rm -f $*_xdr.c && rpcgen -M -c -o $*_xdr.c $*.x

$(RPC_GEN)/%_clnt.c: $(RPC_GEN)/%.x $(RPC_GEN)/%.h
	$(Q)cd $(RPC_GEN) && rm -f $*_clnt.c && rpcgen -M -l -o $*_clnt.c $*.x

$(RPC_GEN)/%_svc.c: $(RPC_GEN)/%.x $(RPC_GEN)/%.h
	$(Q)cd $(RPC_GEN) && rm -f $*_svc.c && rpcgen -M -m -o $*_svc.c $*.x

$(RPC_GEN)/%.o: $(RPC_GEN)/%.c
	@echo "  CC      $(notdir $<)"
	$(Q)$(CC) $(RPC_GEN_CFLAGS) -c -o $@ $<

$(BUILD)/test/rpc/obj/%.o: test/rpc/%.c $(RPC_HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(RPC_CFLAGS) -c -o $@ $<

$(BUILD)/test/rpc/demo-server: $(BUILD)/test/rpc/obj/demo-server.o \
		$(addprefix $(RPC_GEN)/,demo_svc.o demo_clnt.o demo_xdr.o \
		democb_clnt.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

$(BUILD)/test/rpc/demo-client: $(BUILD)/test/rpc/obj/demo-client.o \
		$(addprefix $(RPC_GEN)/,demo_clnt.o demo_xdr.o democb_svc.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

.SECONDARY: $(RPC_XS:test/rpc/%.x=$(RPC_GEN)/%.x) $(RPC_HDRS) \
	$(foreach x,$(RPC_XS:test/rpc/%.x=%),$(addprefix $(RPC_GEN)/$(x),_xdr.c _clnt.c _svc.c))

RPC_PROGS += $(BUILD)/test/rpc/demo-server $(BUILD)/test/rpc/demo-client

# heap-demo: serves and calls HEAP_PROG (heap.x), the heap memory suite's
$(BUILD)/test/rpc/heap-demo: $(BUILD)/test/rpc/obj/heap-demo.o \
		$(addprefix $(RPC_GEN)/,heap_svc.o heap_clnt.o heap_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

RPC_PROGS += $(BUILD)/test/rpc/heap-demo

# site-calls: RPC calls through memory from 32 call sites of its own
# (bench-sites, e2e-sites); -rdynamic, so that the dladdr it defines to
# count look-ups is the one the whole process calls
$(BUILD)/test/rpc/site-calls: $(BUILD)/test/rpc/obj/site-calls.o
	@echo "  LINK    $@"
	$(Q)$(CC) -rdynamic -o $@ $^ $(RPC_LIBS) -ldl

RPC_PROGS += $(BUILD)/test/rpc/site-calls

# stream-demo: serves and calls STREAM_PROG (stream.x), the fork suite's:
# a reply streamed by a fork child, as Debian's ypserv sends YPPROC_ALL's
$(BUILD)/test/rpc/stream-demo: $(BUILD)/test/rpc/obj/stream-demo.o \
		$(addprefix $(RPC_GEN)/,stream_svc.o stream_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

RPC_PROGS += $(BUILD)/test/rpc/stream-demo

# lat-demo: serves and calls LAT_PROG (lat.x), the latency suite's
$(BUILD)/test/rpc/lat-demo: $(BUILD)/test/rpc/obj/lat-demo.o \
		$(addprefix $(RPC_GEN)/,lat_svc.o lat_clnt.o lat_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

RPC_PROGS += $(BUILD)/test/rpc/lat-demo

# vals-demo: serves and calls VALS_PROG (vals.x), the values suite's
$(BUILD)/test/rpc/vals-demo: $(BUILD)/test/rpc/obj/vals-demo.o \
		$(addprefix $(RPC_GEN)/,vals_svc.o vals_clnt.o vals_xdr.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(RPC_LIBS)

RPC_PROGS += $(BUILD)/test/rpc/vals-demo
