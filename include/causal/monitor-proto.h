/*
 * monitor-proto.h - the channel between the monitoring coordinator
 * (`causalctl serve`) and its consumers (libcausal.so's consumer thread)
 * and commands (`causalctl on|off|select|status`): the contract both
 * sides are written against.  README.md ("The coordinator protocol")
 * describes it in full.
 *
 * Plain TCP, one message a line: printable ASCII, fields separated by
 * one space, ended by "\n", at most CAUSAL_MON_LINE_MAX bytes with it.
 * Anything else is malformed: rejected and counted, never acted on.
 *
 *   consumer -> coordinator
 *     HELLO 1 UUID HOST PID INSTANCE APPLIED EXE   once, first
 *     ACK SEQ                    event SEQ applied
 *     BAD SEQ                    event SEQ rejected (malformed), skipped
 *     PING                       every second: still here
 *   coordinator -> consumer
 *     WELCOME 1 INSTANCE         once, first
 *     EVENT SEQ on TYPES         TYPES: a comma-separated list
 *     EVENT SEQ off TYPES
 *     EVENT SEQ select HOST INTERFACE FUNCTION on|off
 *   command -> coordinator, one request a connection
 *     PUBLISH on TYPES | PUBLISH off TYPES
 *     PUBLISH select HOST INTERFACE FUNCTION on|off
 *                                -> OK SEQ | ERR MESSAGE
 *     STATUS                     -> STATE INSTANCE SEQ MALFORMED, one
 *                                   PROC HOST PID APPLIED CONNECTED
 *                                   SEEN_MS BAD EXE per process that ever
 *                                   connected, then END
 *
 * INSTANCE is the coordinator's random id (16 hex digits; "-" when a
 * consumer has never met one): its events are numbered 1, 2, ... for its
 * life.  A consumer says which instance its APPLIED counts in, and gets
 * every event after it (all of them, from another instance).
 */
#ifndef CAUSAL_MONITOR_PROTO_H
#define CAUSAL_MONITOR_PROTO_H

#define CAUSAL_MON_PROTO_VERSION 1
#define CAUSAL_MON_DEFAULT_PORT 7350
#define CAUSAL_MON_LINE_MAX 512

#endif
