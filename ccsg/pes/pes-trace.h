/*
 * pes-trace.h - the program execution sequence of one thread of a merged
 * trace (pes.h's contract: states named with pes_state(), entries
 * appended with pes_append(), the time base ns of the host's monotonic
 * clock).
 *
 * The states, from the rpc_calls and threads tables:
 *   running                 its own code (no call of it open), from the
 *                           thread's start (threads.start_mono_ns) when
 *                           the trace has it, else its first event
 *   serving:FUNCTION        inside a skeleton: skeleton start (exit) to
 *                           skeleton end, on the server thread
 *   waiting:FUNCTION        inside a stub, blocked on a remote call: stub
 *                           start to stub end (exit), on the client thread
 *   waiting-for-lock        from a LOCK wait to the acquired (or failed)
 *                           of that lock (table lock_events)
 *   holding:N               its own code, N locks held (acquired and not
 *                           yet released): in place of running
 *   exited                  from threads.end_mono_ns on
 * Nested calls (a server calling out while serving) show the innermost;
 * a call or a lock wait shows over holding:N.  A call missing either
 * probe of the pair is left out and counted.  FUNCTION is ccsg's name of
 * the call ("INTERFACE::FUNCTION", names.h), its blanks made '_'.
 */
#ifndef CCSG_PES_TRACE_H
#define CCSG_PES_TRACE_H

#include <sqlite3.h>

#include "idl.h"
#include "pes.h"
#include "trace.h"

/* p (initialised here, time base ns) gets the PES of thread (proc, tid)
 * of t, with its lock events from db (t's database; NULL: none): 0,
 * -ENOENT after a message when the trace has no such thread, or nothing
 * of it, or db cannot be read, -ENOMEM.  *skipped counts the calls left
 * out. */
int pes_from_thread(struct pes *p, const struct ccsg_trace *t, sqlite3 *db,
		    const struct idl_names *nm, int32_t proc, int32_t tid,
		    size_t *skipped);

/*
 * out (initialised here, time base ns) gets the program states of the k
 * sequences parts (Chitra's N-tuple): from the latest of their first
 * entries on, an entry each time one of them changes, named by their
 * states in order, joined by ',' ("running,holding:2").  0, -ENOENT
 * after a message when a part is empty, -EINVAL (a name too long),
 * -ENOMEM.
 */
int pes_tuple(struct pes *out, const struct pes *parts, size_t k);

#endif
