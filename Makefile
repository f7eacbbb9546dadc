# causal - one non-recursive Makefile.  `make help` lists the targets.

PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
# Sanitized objects go apart, so that ASAN=1 never mixes with a normal build.
ifeq ($(ASAN),1)
BUILD := build-asan
# sanitized code runs 2-3x slower: Check's per-test timeouts stretch with it
CK_TIMEOUT_MULTIPLIER ?= 3
export CK_TIMEOUT_MULTIPLIER
else
BUILD := build
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# CI builds everything with CFLAGS='-O2 -g -Werror' (.ci/run).
WARN_CFLAGS := -Wall -Wextra -Wshadow -Wformat=2 -Wvla
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN_CFLAGS) -MMD -MP -Iinclude
# Every report is an error: UBSan would otherwise print and go on.
ifeq ($(ASAN),1)
TOOL_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
endif

# --- libcausal.so: everything hidden but the interposed symbols ---------------
# util/hex.c: the uuid in log names; util/monitor-proto.c: the monitoring
# channel's parser, causalctl's too; util/monitor-auth.c: its sealed lines
# over TCP (HMAC-SHA256 from nettle: NETTLE_LIBS); hidden like the rest
LIB_SRCS := $(wildcard preload/*.c shim-pthread/*.c shim-rpc/*.c) util/hex.c \
	util/monitor-proto.c util/monitor-auth.c
NETTLE_LIBS := $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/lib/%.o)
TIRPC_CFLAGS := $(shell pkg-config --cflags libtirpc)
TIRPC_LIBS := $(shell pkg-config --libs libtirpc)
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden -Ipreload -Iutil \
	$(TIRPC_CFLAGS)
LIB_LIBS := -lzstd -lmsgpackc $(TIRPC_LIBS) -lelf -ldl -lpthread \
	$(NETTLE_LIBS)

# Modules of the library that neither interpose nor start anything (no
# constructor, no global state), unit-tested directly.
LIB_PURE_SRCS := preload/ring.c preload/config.c preload/encode.c preload/heap-boot.c \
	preload/identity.c preload/log-file.c preload/log-dir.c shim-rpc/tag.c \
	shim-rpc/xdr-tag.c shim-rpc/xdr-size.c preload/cpu-clock.c \
	preload/monitor-rules.c \
	preload/policy.c preload/read-file.c preload/elf-syms.c

# --- tools --------------------------------------------------------------------
# util/: generic helpers, an archive, so that a tool links the members it
# uses (causalctl: no libcurl, no SQLite)
UTIL_SRCS := $(wildcard util/*.c)
UTIL_LIB := $(BUILD)/libutil.a
# store/: the trace database (SQLite writer and typed reader, the ClickHouse
# store, store URLs), linked by tracedump, ccsg and the tests only
STORE_SRCS := $(wildcard store/*.c)
STORE_LIB := $(BUILD)/libstore.a
TD_SRCS := $(wildcard tracedump/*.c)
TD_ENGINE_SRCS := $(filter-out tracedump/main.c tracedump/cmd-%.c,$(TD_SRCS))
# ccsg/: the core, and a folder of its own for each analysis (its engine
# and its cmd-*.c)
CCSG_SRCS := $(wildcard ccsg/*.c ccsg/*/*.c)
CCSG_CMD_SRCS := $(wildcard ccsg/cmd-*.c ccsg/*/cmd-*.c)
CCSG_ENGINE_SRCS := $(filter-out ccsg/main.c $(CCSG_CMD_SRCS),$(CCSG_SRCS))
$(BUILD)/tool/ccsg/%.o: TOOL_CFLAGS += -Iccsg
CTL_SRCS := $(wildcard causalctl/*.c)
TOOL_CFLAGS := $(BASE_CFLAGS) -Iutil $(TOOL_SAN)
$(BUILD)/tool/store/%.o $(BUILD)/tool/tracedump/%.o $(BUILD)/tool/ccsg/%.o: \
	TOOL_CFLAGS += -Istore
TOOL_LIBS := -lzstd -lmsgpackc -lsqlite3 -lm $(TOOL_SAN)
# ccsg pes: the periodogram (FFTW) and the pictures (cairo)
PES_CFLAGS := $(shell pkg-config --cflags fftw3 cairo fontconfig)
PES_LIBS := $(shell pkg-config --libs fftw3 cairo fontconfig)
TOOL_CFLAGS += $(PES_CFLAGS)
# libcurl: ccsg export --endpoint (OTLP/HTTP) and the ClickHouse store
# (store/clickhouse.c: tracedump and ccsg)
CURL_LIBS := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
TOOL_LIBS += $(CURL_LIBS)
# ccsg spikes symbolises with elfutils (libdw-dev)
TOOL_LIBS += $(shell pkg-config --libs libdw)

# --- tests ----------------------------------------------------------------------
# Every other test/*.c is a helper of the suites (e2e.c, json-read.c...),
# compiled once and linked into the runner; its header declares it.
TEST_HELPER_SRCS := $(filter-out test/check-%.c test/run-tests.c,$(wildcard test/*.c))
TEST_SRCS := $(wildcard test/check-*.c) $(TEST_HELPER_SRCS) test/run-tests.c
TEST_UNIT_SRCS := $(LIB_PURE_SRCS) $(UTIL_SRCS) $(STORE_SRCS) $(TD_ENGINE_SRCS) \
	$(CCSG_ENGINE_SRCS)
TEST_CFLAGS := $(TOOL_CFLAGS) -Ipreload -Itracedump -Ishim-rpc -Iccsg -Istore \
	-I$(BUILD)/test \
	$(shell pkg-config --cflags check) $(TIRPC_CFLAGS)
TEST_LIBS := $(shell pkg-config --libs check) $(TOOL_LIBS) $(PES_LIBS) $(TIRPC_LIBS) \
	-lelf -ldl -lpthread $(NETTLE_LIBS)
PROG_SRCS := $(wildcard test/progs/*.c)
PROGS := $(PROG_SRCS:test/progs/%.c=$(BUILD)/test/progs/%)
BENCH_SRCS := $(wildcard test/bench/*.c)
BENCHES := $(BENCH_SRCS:test/bench/%.c=$(BUILD)/bench/%)
# libraries the benchmarks preload into untraced programs
BENCH_PRELOAD_SRCS := $(wildcard test/bench/preload/*.c)
BENCHES += $(BENCH_PRELOAD_SRCS:test/bench/preload/%.c=$(BUILD)/bench/%.so)
FUZZERS := $(BUILD)/fuzz/fuzz-tag $(BUILD)/fuzz/fuzz-tag-stream \
	$(BUILD)/fuzz/fuzz-log
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLES := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)

TOOLS := $(BUILD)/tracedump $(if $(CCSG_SRCS),$(BUILD)/ccsg) \
	$(BUILD)/causalctl

# --- the bpf clock (bpf/, causalctl) -------------------------------------------
# clang compiles the program for the BPF target against bpf/kernel-types.h
# (CO-RE: no vmlinux.h, no kernel BTF needed to build; the uapi headers are
# found in the multiarch directory); bpftool embeds the object in a
# skeleton header that causalctl includes.  Nothing generated is committed.
# Whether BPF can be loaded is a question for run time only.
BPFTOOL ?= $(firstword $(shell command -v bpftool) /usr/sbin/bpftool)
BPF_CLANG ?= clang
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/;s/ppc64le/powerpc/')
BPF_MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null || echo $$(uname -m)-linux-gnu)
BPF_OUT := $(BUILD)/bpf
BPF_SKEL := $(BPF_OUT)/bpf-clock.skel.h
LIBBPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf)

# man pages: each made from the text of docs/ by scripts/md2man.py, after
# its outline man/NAME.N.md (which sections, in which order); the suite
# `docs` renders them and `make install` installs them
MAN_OUTLINES := $(wildcard man/*.[1-8].md)
MANPAGES := $(MAN_OUTLINES:man/%.md=$(BUILD)/man/%)
DOCS := $(wildcard docs/*.md)

all: $(BUILD)/libcausal.so $(TOOLS) $(MANPAGES)

$(BUILD)/man/%: man/%.md scripts/md2man.py $(MAN_OUTLINES) $(DOCS)
	@mkdir -p $(dir $@)
	@echo "  MAN     $@"
	$(Q)python3 scripts/md2man.py $< $@

$(BUILD)/libcausal.so: $(LIB_OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) -shared -Wl,--no-undefined -Wl,-z,now -o $@ $^ $(LIB_LIBS)

$(BUILD)/lib/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(BUILD)/tool/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(TOOL_CFLAGS) -c -o $@ $<

$(UTIL_LIB): $(UTIL_SRCS:%.c=$(BUILD)/tool/%.o)
$(STORE_LIB): $(STORE_SRCS:%.c=$(BUILD)/tool/%.o)
$(UTIL_LIB) $(STORE_LIB):
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tracedump: $(TD_SRCS:%.c=$(BUILD)/tool/%.o) $(STORE_LIB) $(UTIL_LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(TOOL_LIBS)

# `ccsg serve`: libmicrohttpd, and the page (web/) built into the binary
MHD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
WEB_FILES := web/index.html web/app.js web/flame.js web/hyper.js web/pes.js \
	web/timeline.js web/style.css
$(BUILD)/tool/ccsg/serve/cmd-serve.o: TOOL_CFLAGS += $(MHD_CFLAGS)

$(BUILD)/gen/web-assets.c: web/embed.py $(WEB_FILES)
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)python3 web/embed.py $@ $(WEB_FILES)

$(BUILD)/gen/web-assets.o: $(BUILD)/gen/web-assets.c
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/ccsg: $(CCSG_SRCS:%.c=$(BUILD)/tool/%.o) $(BUILD)/gen/web-assets.o \
		$(STORE_LIB) $(UTIL_LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(TOOL_LIBS) $(PES_LIBS) $(MHD_LIBS)

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/kernel-types.h include/causal/bpf-clock.h
	@mkdir -p $(dir $@)
	@echo "  BPF     $<"
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
		-Wall -Werror -Iinclude -idirafter /usr/include/$(BPF_MULTIARCH) \
		-c -o $@ $<

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< name causal_$(subst -,_,$*) > $@.tmp && \
		mv $@.tmp $@

.SECONDARY: $(BPF_OUT)/bpf-clock.bpf.o

$(CTL_SRCS:%.c=$(BUILD)/tool/%.o): TOOL_CFLAGS += -I$(BPF_OUT)
$(BUILD)/tool/causalctl/bpf-clock.o: $(BPF_SKEL)

$(BUILD)/causalctl: $(CTL_SRCS:%.c=$(BUILD)/tool/%.o) $(UTIL_LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(LIBBPF_LIBS) $(NETTLE_LIBS) $(TOOL_SAN)

# The test runner: unit suites link the library's pure modules and the
# tools' engines; end-to-end suites drive the built binaries.
# suites.h lists the suites for run-tests.c alone, and is written only
# when the list changes (a suite added, renamed or removed): an edited
# check-*.c rebuilds its own object and relinks, and `make -n` says so.
TEST_SUITES := $(shell grep -ho '^Suite \*[a-z0-9_]*_suite(void)' test/check-*.c | \
	sed 's/^Suite \*\(.*\)(void)/SUITE(\1)/')
ifneq ($(TEST_SUITES),$(shell cat $(BUILD)/test/suites.h 2>/dev/null))
$(BUILD)/test/suites.h: FORCE
endif
$(BUILD)/test/suites.h:
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' $(patsubst %,'%',$(TEST_SUITES)) > $@

$(BUILD)/test/obj/test/run-tests.o: $(BUILD)/test/suites.h

$(BUILD)/test/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/test/run-tests: $(addprefix $(BUILD)/test/obj/,$(TEST_SRCS:.c=.o) $(TEST_UNIT_SRCS:.c=.o))
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(TEST_LIBS)

# run-tests-extra: the suites records and merge-dests built with one record
# type more, which test/extra-record.h defines and force-includes into each
# of its files (nowhere else): they pass only if everything generated from
# records.def takes a new type from its lines there alone.  `make check`
# runs it.
TEST_EXTRA_SRCS := test/run-tests.c test/check-records.c \
	test/check-merge-dests.c test/log-fixture.c $(wildcard test/test-tmp*.c) \
	preload/encode.c \
	$(filter-out $(CCSG_ENGINE_SRCS) $(LIB_PURE_SRCS) test/%,$(TEST_UNIT_SRCS))
RUN_TESTS_EXTRA = CAUSAL_BUILD=$(abspath $(BUILD)) CAUSAL_SRC=$(CURDIR) \
	$(BUILD)/test/run-tests-extra

$(BUILD)/test-extra/suites.h:
	@mkdir -p $(dir $@)
	$(Q)printf 'SUITE(records_suite)\nSUITE(merge_dests_suite)\n' > $@

$(BUILD)/test-extra/obj/%.o: %.c test/extra-record.h $(BUILD)/test-extra/suites.h
	@mkdir -p $(dir $@)
	@echo "  CC      $< (one record type more)"
	$(Q)$(CC) $(CFLAGS) -I$(BUILD)/test-extra $(TEST_CFLAGS) \
		-include test/extra-record.h -c -o $@ $<

$(BUILD)/test/run-tests-extra: $(TEST_EXTRA_SRCS:%.c=$(BUILD)/test-extra/obj/%.o)
	@echo "  LINK    $@"
	$(Q)$(CC) -o $@ $^ $(TEST_LIBS)

# the sampler walks frame pointers (preload/sampler.h)
$(BUILD)/test/progs/spike-%: CFLAGS += -fno-omit-frame-pointer

$(BUILD)/test/progs/%: test/progs/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ $< -lpthread -lm

$(BUILD)/bench/%: test/bench/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ipreload -Iutil -o $@ $< -lpthread -lm -lzstd -lmsgpackc -lsqlite3

$(BUILD)/bench/%.so: test/bench/preload/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -shared -fPIC -o $@ $< -lpthread

# bench-peers' LTTng-UST peers on the RPC loop and on create+join (make
# bench only: LTTng's headers are not the project's to keep warning-free
# under every compiler)
PEER_LIBS := $(BUILD)/bench/lttng-rpc.so $(BUILD)/bench/lttng-threads.so
$(BUILD)/bench/lttng-%.so: test/bench/peers/lttng-%.c test/bench/peers/lttng-%-tp.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -std=gnu11 -D_GNU_SOURCE -Wall -shared -fPIC \
		-Itest/bench/peers $(TIRPC_CFLAGS) -o $@ $< \
		$$(pkg-config --libs lttng-ust) -ldl

# the merge benchmarks' generators write their logs with the tests' writer
$(BUILD)/bench/gen-logs $(BUILD)/bench/gen-rpc-logs: $(BUILD)/bench/%: \
		test/bench/%.c test/log-fixture.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itracedump -o $@ $(filter %.c,$^) \
		-lzstd -lmsgpackc

# the hot-path benchmark runs the library's inline emit path itself
$(BUILD)/bench/record-cost: test/bench/record-cost.c preload/ring.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ipreload -Iutil -o $@ $(filter %.c,$^) -lpthread

# the CPU clock's cost reads the library's own bpf clock reader
# (the sources only: the dependency file adds the headers to $^)
$(BUILD)/bench/cpu-clock-cost: test/bench/cpu-clock-cost.c preload/cpu-clock.c \
		preload/read-file.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ipreload -o $@ $(filter %.c,$^)

# the writer's cost runs the library's own encoder and log writer
$(BUILD)/bench/writer-cost: test/bench/writer-cost.c preload/encode.c preload/log-file.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ipreload -Iutil -o $@ $(filter %.c,$^) -lzstd -lmsgpackc

# the compaction benchmark runs the engine itself
$(BUILD)/bench/compact-cost: test/bench/compact-cost.c ccsg/compact/compact.c \
		ccsg/compact/compact-names.c util/array.c \
		util/hashmap.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -Iccsg -Iutil -o $@ $(filter %.c,$^)

# the impact benchmark drives the ccsg engine in one process
$(BUILD)/bench/impact-cost: test/bench/impact-cost.c \
		$(CCSG_ENGINE_SRCS:%.c=$(BUILD)/tool/%.o) $(STORE_LIB) $(UTIL_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(TOOL_CFLAGS) -Iccsg -Istore -o $@ $< $(filter %.o %.a,$^) \
		$(TOOL_LIBS) $(PES_LIBS)

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ $< -lpthread -lm

# rpcgen-generated test programs (test/rpc/) bring their own rules
RPC_PROGS :=
-include test/rpc/rules.mk
-include examples/rules.mk
-include examples/diagnose/rules.mk

# The suites: unit suites (`make check`: seconds, no root, files only in
# the build and $TMPDIR) and end-to-end suites (`make e2e`: traced programs
# in namespaces, as root; another user gets one line saying they are
# skipped).  A suite is end to end when its name holds "e2e"
# (test/check-e2e-*.c, test/check-ccsg-e2e.c).  `make test` fuzzes for
# about 10 s, then runs both.  SUITE=name runs the suites whose name
# contains it.
RUN_TESTS = CAUSAL_BUILD=$(abspath $(BUILD)) CAUSAL_SRC=$(CURDIR) \
	$(BUILD)/test/run-tests

check: all $(BUILD)/test/run-tests $(BUILD)/test/run-tests-extra
	$(Q)$(RUN_TESTS) --unit $(SUITE)
	$(if $(SUITE),,$(Q)$(RUN_TESTS_EXTRA))

e2e: all $(BUILD)/test/run-tests $(PROGS) $(RPC_PROGS) $(EXAMPLE_PROGS) $(EXAMPLES) \
		$(BUILD)/bench/gen-rpc-logs
	$(Q)$(RUN_TESTS) --e2e $(SUITE)

test: all $(BUILD)/test/run-tests $(BUILD)/test/run-tests-extra $(PROGS) \
		$(RPC_PROGS) $(EXAMPLE_PROGS) $(EXAMPLES) $(FUZZERS) \
		$(BUILD)/bench/gen-rpc-logs
	@echo "fuzzing the RPC tag decoder for 2 s, its stream readers for 4 s, the log reader for 4 s"
	$(call run-fuzz,tag,2)
	$(call run-fuzz,tag-stream,4)
	$(call run-fuzz,log,4)
	$(Q)$(RUN_TESTS) $(SUITE)
	$(if $(SUITE),,$(Q)$(RUN_TESTS_EXTRA))

# Everything any target builds: CI's build with -Werror.
everything: all $(BUILD)/test/run-tests $(BUILD)/test/run-tests-extra $(PROGS) \
	$(RPC_PROGS) $(BENCHES) $(EXAMPLES) $(EXAMPLE_PROGS) $(FUZZERS)

bench: all $(BENCHES) $(PEER_LIBS) $(PROGS) $(RPC_PROGS)
	$(Q)BUILD=$(abspath $(BUILD)) bash test/bench/run-bench.sh

# bench-scale up to 10,000,000 calls: minutes, gigabytes (too long for bench)
bench-large: all $(BENCHES)
	$(Q)BUILD=$(abspath $(BUILD)) bash test/bench/bench-scale.sh 1000000 10000000

example: all $(EXAMPLES)
	$(Q)BUILD=$(abspath $(BUILD)) bash examples/run-example.sh
	@echo "To explore the Figure 1 trace in the viewer (four linked trees in the browser):"
	@echo "  $(BUILD)/ccsg serve --db $(BUILD)/example-logs/figure1/logs/trace.db --idl examples/figure1/figure1.x"
	@echo "then open http://127.0.0.1:8080/ (Ctrl-C stops the server)"

# Figure 1 twice (say_it 20% less on its host the second time): ccsg
# impact's prediction from the first trace against the second run
example-impact: all $(EXAMPLE_PROGS)
	$(Q)BUILD=$(abspath $(BUILD)) bash examples/run-example.sh impact

# the planted bottlenecks (examples/diagnose/): each run twice, the cause
# 20% smaller the second time; ccsg diagnose's answer and its prediction
# beside the second run
example-diagnose: all $(EXAMPLE_PROGS)
	$(Q)BUILD=$(abspath $(BUILD)) bash examples/diagnose/run-diagnose.sh

# the dining philosophers traced with the lock records: philosopher 0's
# PES, its model and its views before and after filtering, in
# $(BUILD)/example-pes/
example-pes: all $(EXAMPLES)
	$(Q)BUILD=$(abspath $(BUILD)) bash examples/run-example.sh pes

# the README's picture of the viewer, docs/viewer.png: Figure 1 traced
# again, `ccsg serve` on it, headless chromium on the page
screenshot: all $(EXAMPLES)
	$(Q)BUILD=$(abspath $(BUILD)) bash examples/run-example.sh figure1 >/dev/null
	$(Q)BUILD=$(abspath $(BUILD)) bash scripts/viewer-screenshot.sh docs/viewer.png

MANDIR ?= $(PREFIX)/share/man

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 0755 $(BUILD)/libcausal.so $(DESTDIR)$(PREFIX)/lib/libcausal.so
	install -m 0755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(filter %.7,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man7/

# libFuzzer targets for the code that reads untrusted input: the tag
# decoder (fuzz-tag) and the readers of the tag off TCP record streams and
# UDP datagrams, with libtirpc (fuzz-tag-stream), which read the network;
# the log reader, record decoder and dump (fuzz-log), which read logs.
# Seeds in test/fuzz/NAME-seeds, what they found in build/fuzz/corpus-NAME:
#   make fuzz FUZZ_SECONDS=60      (each target that long)
FUZZ_SECONDS ?= 30
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) -std=gnu11 \
	-D_GNU_SOURCE $(WARN_CFLAGS) $(filter -W%,$(CFLAGS)) -Iinclude -Ishim-rpc
# fuzz-log links the tools' engines, built apart with the sanitizers and
# libFuzzer's coverage (no main of its own).
FUZZ_LOG_OBJS := $(TD_ENGINE_SRCS:%.c=$(BUILD)/fuzz/obj/%.o) \
	$(STORE_SRCS:%.c=$(BUILD)/fuzz/obj/%.o) $(UTIL_SRCS:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_OBJ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
	$(BASE_CFLAGS) $(filter -W%,$(CFLAGS)) -Iutil -Istore -Itracedump

$(BUILD)/fuzz/fuzz-tag: test/fuzz/fuzz-tag.c shim-rpc/tag.c shim-rpc/tag.h
	@mkdir -p $(dir $@)
	@echo "  CLANG   $<"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(BUILD)/fuzz/fuzz-tag-stream: test/fuzz/fuzz-tag-stream.c shim-rpc/xdr-tag.c \
		shim-rpc/tag.c shim-rpc/xdr-tag.h shim-rpc/tag.h
	@mkdir -p $(dir $@)
	@echo "  CLANG   $<"
	$(Q)clang $(FUZZ_CFLAGS) $(TIRPC_CFLAGS) -o $@ $(filter %.c,$^) \
		$(TIRPC_LIBS)

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CLANG   $<"
	$(Q)clang $(FUZZ_OBJ_CFLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz-log: $(BUILD)/fuzz/obj/test/fuzz/fuzz-log.o $(FUZZ_LOG_OBJS)
	@echo "  LINK    $@"
	$(Q)clang -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ -lzstd -lmsgpackc \
		-lsqlite3 -lm $(CURL_LIBS) $(NETTLE_LIBS)

# $(call run-fuzz,NAME,SECONDS): quiet, the log's tail on a finding.
# The targets' own stderr is closed (dump's warnings on every damaged
# input); libFuzzer and the sanitizers report on a copy of it.
define run-fuzz
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-$(1) && $(BUILD)/fuzz/fuzz-$(1) \
		-max_total_time=$(2) -artifact_prefix=$(BUILD)/fuzz/ \
		-close_fd_mask=2 \
		$(BUILD)/fuzz/corpus-$(1) test/fuzz/$(1)-seeds \
		> $(BUILD)/fuzz/$(1).log 2>&1 || \
		{ tail -20 $(BUILD)/fuzz/$(1).log; exit 1; }
endef

fuzz: $(FUZZERS)
	$(call run-fuzz,tag,$(FUZZ_SECONDS))
	@tail -n 1 $(BUILD)/fuzz/tag.log
	$(call run-fuzz,tag-stream,$(FUZZ_SECONDS))
	@tail -n 1 $(BUILD)/fuzz/tag-stream.log
	$(call run-fuzz,log,$(FUZZ_SECONDS))
	@tail -n 1 $(BUILD)/fuzz/log.log

clean:
	rm -rf build build-asan build-strict build-clang $(BUILD)

help:
	@echo "targets:"
	@echo "  all       the library, tracedump, ccsg, causalctl and the man pages, in"
	@echo "            build/ (default)"
	@echo "  test      build and run every Check suite (unit and end to end), after"
	@echo "            10 s of fuzzing: the full test, as CI runs it (as root)"
	@echo "  check     build and run the unit suites: seconds, no root needed"
	@echo "  e2e       build and run the end-to-end suites (traced programs, as root;"
	@echo "            another user gets one line saying they are skipped)"
	@echo "  everything build what any other target builds (CI: with -Werror)"
	@echo "  bench     run the benchmarks, printing traced/untraced ratios"
	@echo "  bench-large  merge and report 1M and 10M calls: how they grow (minutes)"
	@echo "  example   run the bundled example traced, merge, show the result (and"
	@echo "            how to open it in the viewer, ccsg serve)"
	@echo "  example-impact  Figure 1 run twice, say_it 20% less the second time:"
	@echo "            ccsg impact's prediction from the first trace vs the second run"
	@echo "  example-diagnose  planted bottlenecks (a lock, a CPU-hungry host, a slow"
	@echo "            link) run twice: ccsg diagnose's cause and prediction vs the second run"
	@echo "  example-pes  the dining philosophers traced with the lock records:"
	@echo "            a philosopher's PES, its model and views in build/example-pes/"
	@echo "  screenshot  Figure 1 traced again and the README's picture of the viewer"
	@echo "            taken again (docs/viewer.png; headless chromium)"
	@echo "  fuzz      fuzz the RPC tag decoder, its stream readers and the log reader"
	@echo "            (FUZZ_SECONDS=30 each)"
	@echo "  install   install the library, tracedump, ccsg, causalctl and the man pages"
	@echo "            (tracedump.1, ccsg.1, causalctl.1, libcausal.7) into PREFIX"
	@echo "            (default /usr/local)"
	@echo "  clean     remove build/, build-asan/ and CI's build-strict/, build-clang/"
	@echo "  help      this list"
	@echo "variables: V=1 (verbose), ASAN=1 (sanitize tools and tests with ASan and UBSan,"
	@echo "           built in build-asan/), SUITE=name (the suites whose name contains it),"
	@echo "           CC=clang BUILD=build-clang (another compiler, in a directory apart),"
	@echo "           PREFIX=..., DESTDIR=..., MANDIR=..."

FORCE:

.PHONY: all test check e2e everything bench bench-large example example-impact example-diagnose example-pes screenshot install clean help fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
