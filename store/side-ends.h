/*
 * side-ends.h - the columns of rpc_calls a side's end probe fills: what
 * the end-only row of a side cut by a segment boundary gives the open
 * row of the side, when the two are made one again (by `tracedump merge
 * --follow` into SQLite, tracedump/follow-copy.c, and by the reader of a
 * ClickHouse store, store/ch-calls.c).
 */
#ifndef CAUSAL_SIDE_ENDS_H
#define CAUSAL_SIDE_ENDS_H

/* The client side's end, and the server side's. */
#define STUB_END_COLS                                                          \
	"stub_end_event, stub_end_ns, stub_end_exit_ns, stub_end_cpu_ns, "     \
	"status, status_name, args_bytes, results_bytes, reply_tag"
#define SKEL_END_COLS                                                          \
	"skel_end_event, skel_end_ns, skel_end_exit_ns, skel_end_cpu_ns, "     \
	"server_results_bytes, reply, reply_proc_id"

#endif
