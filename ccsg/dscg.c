/*
 * dscg.c - rebuild the dynamic system call graph (monitoring paper,
 * Section 4.1, Figures 6 and 7).
 *
 * Each chain's events are sorted by event number (O(L log L) for a chain
 * of L events, O(M log M) in all) and scanned once with a stack of the
 * open calls.  The transitions of Figure 7 are: "in progress" (the next
 * probe of the call on top), "child starts" (a stub start while the call
 * on top is inside its skeleton), "child returns" (the skeleton end of
 * the call on top once its child has popped) and "sibling continues" (a
 * stub start after a stub end).  A call to an untraced server goes from
 * stub start to stub end; one from an untraced client starts the chain at
 * its skeleton start, event 0.  Anything else - a gap in the event numbers
 * (a lost log), a duplicate (a retransmitted call run twice), a probe of
 * another call - is the abnormal transition: it is counted and, when it
 * opens a call, starts a new segment with that call as a root.  An end
 * probe of a call still open resynchronises the stack (the calls above it
 * lost their ends), so the parents of later calls stay right.  A call
 * whose start probe was dropped (only its end is known, not its
 * function) can only arrive abnormally: it is always a segment of its
 * own, counted as lost, and never a function (ccsg.c).  A stub end
 * CAUSAL_RPC_EVENT_SKIP after its own stub start is no gap: the client
 * got no tag back (a timeout, a one-way call) and jumped over whatever
 * its server numbered (log-format.h).
 *
 * Sorting here is cheaper than having the database do it: for a million
 * calls (4 million probes) gathering and sorting take 0.3 s of CPU, while
 * reading the probes in (chain, event) order from the indexed table
 * schema version 2 had took 6.5 s, and the table and its index were
 * 670 MB of a 1.45 GB database (the merge no longer writes them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal/log-format.h"
#include "chain-kind.h"
#include "sampling.h"
#include "dscg.h"

struct scan_event {
	int64_t no;
	int32_t call;
	int32_t kind;		/* enum ccsg_probe */
};

struct scan_frame {
	int32_t call;
	int32_t phase;		/* the last probe seen of it */
};

static int cmp_event(const void *a, const void *b)
{
	const struct scan_event *x = a, *y = b;

	if (x->no != y->no)
		return x->no < y->no ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	return x->kind - y->kind;
}

static void place(struct ccsg_scan *s, int32_t c, int32_t parent, int32_t seg)
{
	struct ccsg_call *call = &s->t->calls[c];

	call->parent = parent;
	call->seg = seg;
	call->depth = parent >= 0 ? s->t->calls[parent].depth + 1 : 1;
	s->placed[c] = 1;
}

static int push(struct ccsg_scan *s, int32_t c, int32_t phase)
{
	if (GROW(s->stack, s->cap_stack, s->depth + 1))
		return -ENOMEM;
	s->stack[s->depth++] = (struct scan_frame){ c, phase };
	return 0;
}

/* Does this probe end the call (pop it)? */
static int ends_call(const struct ccsg_call *c, int kind)
{
	return kind == CCSG_STUB_END ||
	       (kind == CCSG_SKEL_END && c->ev[CCSG_STUB_START] == CCSG_NONE &&
		c->ev[CCSG_STUB_END] == CCSG_NONE);
}

/* The Figure 7 transition from the stack top to this event, if normal. */
static int normal_transition(struct ccsg_scan *s, const struct scan_event *e,
			     int first)
{
	const struct ccsg_call *c = &s->t->calls[e->call];
	const struct scan_frame *top =
		s->depth ? &s->stack[s->depth - 1] : NULL;

	switch (e->kind) {
	case CCSG_STUB_START:
		if (s->placed[e->call])
			return 0;
		if (!top)		/* first call, or sibling continues */
			return 1;
		if (top->phase != CCSG_SKEL_START)
			return 0;
		/* child starts: made by the thread running the skeleton */
		{
			const struct ccsg_call *p = &s->t->calls[top->call];

			return !p->server_tid || !c->client_tid ||
			       (p->server_proc == c->client_proc && p->server_tid == c->client_tid);
		}
	case CCSG_SKEL_START:
		if (top && top->call == e->call)
			return top->phase == CCSG_STUB_START;
		/* an untraced client's call starts its own chain at event 0 */
		return !top && first && e->no == 0 && !s->placed[e->call] &&
		       c->ev[CCSG_STUB_START] == CCSG_NONE;
	case CCSG_SKEL_END:
		return top && top->call == e->call && top->phase == CCSG_SKEL_START;
	case CCSG_STUB_END:
		return top && top->call == e->call &&
		       (top->phase == CCSG_SKEL_END ||
			(top->phase == CCSG_STUB_START && c->ev[CCSG_SKEL_START] == CCSG_NONE));
	}
	return 0;
}

/* A chain's scan begins: no event seen, nothing open. */
static void scan_begin(struct ccsg_scan *s)
{
	s->prev = CCSG_NONE;
	s->seg = 0;
	s->nev = 0;
	s->depth = 0;
}

/*
 * Scan calls [from, ch->first + ch->n) of chain ch, whose events all come
 * after those of the calls before, scanned already: the state (the last
 * event, the segment, the open calls) carries on, so a chain scanned in
 * parts is scanned as in one.
 */
static int scan_calls(struct ccsg_scan *s, struct ccsg_chain *ch, int32_t from)
{
	struct ccsg_trace *t = s->t;
	size_t n = 0;

	for (int32_t i = from; i < ch->first + ch->n; i++) {
		struct ccsg_call *c = &t->calls[i];
		int any = 0;

		for (int k = 0; k < 4; k++) {
			if (c->ev[k] == CCSG_NONE)
				continue;
			if (GROW(s->ev, s->cap_ev, n + 1))
				return -ENOMEM;
			s->ev[n++] = (struct scan_event){ c->ev[k], i, k };
			any = 1;
		}
		if (!any) {	/* no event at all: a segment of its own */
			place(s, i, -1, ++s->seg);
			c->abnormal = 1;
			ch->breaks++;
		}
	}
	if (n > 1)
		qsort(s->ev, n, sizeof(*s->ev), cmp_event);
	for (size_t i = 0; i < n; i++, s->nev++) {
		const struct scan_event *e = &s->ev[i];
		struct ccsg_call *c = &t->calls[e->call];
		int64_t prev = s->prev;
		int gap = prev == CCSG_NONE ? e->no != 0 : e->no != prev + 1;

		if (gap && e->kind == CCSG_STUB_END && prev != CCSG_NONE &&
		    c->ev[CCSG_STUB_START] != CCSG_NONE &&
		    e->no == c->ev[CCSG_STUB_START] + (int64_t)CAUSAL_RPC_EVENT_SKIP &&
		    e->no > prev)
			gap = 0;

		s->prev = e->no;
		if (!gap && normal_transition(s, e, s->nev == 0)) {
			if (!s->placed[e->call]) {
				place(s, e->call,
				      s->depth ? s->stack[s->depth - 1].call
					       : -1,
				      s->seg);
				if (push(s, e->call, e->kind))
					return -ENOMEM;
			} else {
				s->stack[s->depth - 1].phase = e->kind;
			}
			if (ends_call(c, e->kind))
				s->depth--;
			continue;
		}
		/* the abnormal transition */
		ch->breaks++;
		c->abnormal = 1;
		if (!s->placed[e->call]) {
			place(s, e->call, -1, ++s->seg);
			if (!ends_call(c, e->kind) && push(s, e->call, e->kind))
				return -ENOMEM;
			continue;
		}
		for (size_t d = s->depth; d-- > 0;) {
			if (s->stack[d].call != e->call)
				continue;
			/* resynchronise: the calls above lost their ends */
			s->depth = d + 1;
			s->stack[d].phase = e->kind;
			if (ends_call(c, e->kind))
				s->depth--;
			break;
		}
	}
	return 0;
}

/* A chain's scan ends: its counts. */
static void scan_end(struct ccsg_scan *s, struct ccsg_chain *ch)
{
	struct ccsg_dscg_stats *st = s->st;

	if (s->depth)
		ch->truncated = 1;
	if (ch->breaks || ch->truncated) {
		ch->segments = s->seg + 1;
		st->broken_chains++;
		st->segments += ch->segments;
		st->breaks += ch->breaks;
		st->truncated_chains += ch->truncated;
	}
	st->chains++;
}

static void link_child(struct ccsg_dscg *d, int32_t *last, int32_t parent, int32_t child)
{
	d->parent[child] = parent;
	if (last[parent] < 0)
		d->first_child[parent] = child;
	else
		d->next_sibling[last[parent]] = child;
	last[parent] = child;
}

static uint64_t spawn_key(int32_t proc, int64_t function)
{
	return hashmap_key2((uint32_t)proc, (uint32_t)function);
}

int ccsg_spawns_init(struct ccsg_spawns *sp, struct ccsg_trace *t)
{
	int32_t *tail = malloc((t->nthreads + 1) * sizeof(*tail));
	int ret = -ENOMEM;

	memset(sp, 0, sizeof(*sp));
	sp->next = malloc((t->nthreads + 1) * sizeof(*sp->next));
	sp->decided = calloc(t->nthreads + 1, 1);
	if (!tail || !sp->next || !sp->decided)
		goto out;
	for (size_t i = 0; i < t->nthreads; i++) {
		struct ccsg_thread *th = &t->threads[i];
		int32_t head;

		th->spawn_call = th->parent_thread = -1;
		if (th->parent_tid && th->parent_tid != th->tid)
			th->parent_thread =
				ccsg_trace_thread(t, th->proc, th->parent_tid);
		sp->next[i] = -1;
		if (th->ctx_function == CCSG_NONE)
			continue;
		head = hashmap_put(&sp->first,
				   spawn_key(th->proc, th->ctx_function),
				   (int32_t)i);
		if (head < 0)
			goto out;
		if (head != (int32_t)i) /* in thread order, after the last */
			sp->next[tail[head]] = (int32_t)i;
		tail[head] = (int32_t)i;
	}
	ret = 0;
out:
	free(tail);
	return ret;
}

int32_t ccsg_spawns_first(const struct ccsg_spawns *sp, int32_t proc,
			  int64_t function)
{
	return hashmap_get(&sp->first, spawn_key(proc, function));
}

int32_t ccsg_spawns_note(struct ccsg_spawns *sp, struct ccsg_trace *t,
			 const struct ccsg_call *c, int32_t ordinal)
{
	int32_t head;

	/* a call whose start was lost is in no function: the threads it
	 * spawned hang under their parent thread */
	if (c->lost || !c->server_proc || c->server_function_id == CCSG_NONE)
		return -1;
	head = ccsg_spawns_first(sp, c->server_proc, c->server_function_id);
	if (head < 0 || sp->decided[head])
		return -1;
	sp->decided[head] = 1;
	for (int32_t i = head; i >= 0; i = sp->next[i]) {
		struct ccsg_thread *th = &t->threads[i];

		if (th->parent_thread < 0 || c->server_tid == th->parent_tid) {
			th->spawn_call = ordinal;
			th->parent_thread = -1;
		}
	}
	return head;
}

int32_t ccsg_spawns_head(const struct ccsg_spawns *sp,
			 const struct ccsg_trace *t, int32_t th)
{
	const struct ccsg_thread *x = &t->threads[th];

	return x->ctx_function == CCSG_NONE
		       ? -1
		       : ccsg_spawns_first(sp, x->proc, x->ctx_function);
}

int ccsg_spawns_beats(const struct ccsg_spawns *from,
		      const struct ccsg_spawns *into, int32_t head)
{
	return from->decided[head] &&
	       (!into->decided[head] ||
		ccsg_call_key_cmp(&from->at[head], &into->at[head]) < 0);
}

void ccsg_spawns_merge(struct ccsg_spawns *into, struct ccsg_trace *tin,
		       const struct ccsg_spawns *from,
		       const struct ccsg_trace *tfrom)
{
	for (size_t h = 0; h < tin->nthreads; h++) {
		if (!ccsg_spawns_beats(from, into, (int32_t)h))
			continue;
		into->decided[h] = 1;
		into->at[h] = from->at[h];
		for (int32_t i = (int32_t)h; i >= 0; i = into->next[i]) {
			tin->threads[i].spawn_call =
				tfrom->threads[i].spawn_call;
			tin->threads[i].parent_thread =
				tfrom->threads[i].parent_thread;
		}
	}
}

int ccsg_spawns_finish(struct ccsg_trace *t, struct ccsg_dscg_stats *st)
{
	uint8_t *mark = calloc(t->nthreads + 1, 1);

	if (!mark)
		return -ENOMEM;
	for (size_t i = 0; i < t->nthreads; i++) {
		int32_t j = (int32_t)i;
		size_t steps = 0;

		/* 1 = on the current walk, 2 = known to reach a root */
		while (!mark[j] && t->threads[j].parent_thread >= 0 && steps++ < t->nthreads) {
			mark[j] = 1;
			j = t->threads[j].parent_thread;
		}
		if (mark[j] == 1)	/* back on the walk: a cycle */
			t->threads[j].parent_thread = -1;
		for (int32_t k = (int32_t)i; k >= 0 && mark[k] == 1;) {
			mark[k] = 2;
			k = t->threads[k].parent_thread;
		}
		st->spawned_threads += t->threads[i].spawn_call >= 0;
	}
	free(mark);
	return 0;
}

void ccsg_spawns_release(struct ccsg_spawns *sp)
{
	hashmap_release(&sp->first);
	free(sp->next);
	free(sp->decided);
	free(sp->at);
	memset(sp, 0, sizeof(*sp));
}

static int cmp_tally(const void *a, const void *b, void *arg)
{
	const struct ccsg_tally_entry *x = a, *y = b;
	char *const *strings = arg;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(strings[x->str], strings[y->str]);
}

static int tally_add(struct ccsg_tally *ty, int32_t str)
{
	int32_t e;

	if (str < 0)
		return 0;
	if ((e = hashmap_get(&ty->index, (uint64_t)str)) < 0) {
		if (GROW(ty->v, ty->cap, ty->n + 1) ||
		    hashmap_put(&ty->index, (uint64_t)str, (int32_t)ty->n) < 0)
			return -ENOMEM;
		e = (int32_t)ty->n++;
		ty->v[e] = (struct ccsg_tally_entry){ str, 0 };
	}
	ty->v[e].n++;
	return 0;
}

static void tally_sort(struct ccsg_tally *ty, struct ccsg_trace *t)
{
	if (ty->n > 1)		/* never qsort_r(NULL, 0, ...) */
		qsort_r(ty->v, ty->n, sizeof(*ty->v), cmp_tally, t->strings);
}

static void tally_release(struct ccsg_tally *ty)
{
	free(ty->v);
	hashmap_release(&ty->index);
	memset(ty, 0, sizeof(*ty));
}

/* The counts that head the outputs: lost starts, failures, tags, ... */
static int count_call(struct ccsg_scan *s, const struct ccsg_call *c)
{
	struct ccsg_dscg_stats *st = s->st;

	if (c->depth > st->max_depth)
		st->max_depth = c->depth;
	st->no_server += c->missing == CCSG_NO_SERVER;
	st->no_client += c->missing == CCSG_NO_CLIENT;
	st->incomplete += (c->ev[CCSG_STUB_START] != CCSG_NONE &&
			   c->ev[CCSG_STUB_END] == CCSG_NONE) ||
			  (c->ev[CCSG_SKEL_START] != CCSG_NONE &&
			   c->ev[CCSG_SKEL_END] == CCSG_NONE);
	st->lost_starts += c->lost;
	st->failed += c->failed;
	if ((c->failed &&
	     tally_add(&st->failures,
		       c->status >= 0 ? c->status_name : s->reply[c->reply])) ||
	    tally_add(&st->tags, c->tag) ||
	    tally_add(&st->reply_tags, c->reply_tag))
		return -ENOMEM;
	return 0;
}

int ccsg_scan_init(struct ccsg_scan *s, struct ccsg_trace *t,
		   struct ccsg_dscg_stats *st)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->st = st;
	for (int i = 0; i < CCSG_NREPLY; i++)
		if ((s->reply[i] = ccsg_trace_intern(t, ccsg_reply_names[i])) <
		    0)
			return -ENOMEM;
	return 0;
}

/* The global thread node: whoever made the chain's first call, a root
 * (the first event, or none). */
static void chain_owner(struct ccsg_scan *s, struct ccsg_chain *ch)
{
	const struct ccsg_call *c = &s->t->calls[ch->first];

	ch->owner = c->client_tid ? ccsg_trace_thread(s->t, c->client_proc,
						      c->client_tid)
				  : -1;
	s->st->thread_calls += ch->owner >= 0;
}

int ccsg_scan_part(struct ccsg_scan *s, struct ccsg_chain *ch, int32_t from,
		   int begins)
{
	size_t end = (size_t)ch->first + (size_t)ch->n;

	if (GROW(s->placed, s->cap_placed, end))
		return -ENOMEM;
	memset(s->placed + from, 0, end - (size_t)from);
	if (begins) {
		scan_begin(s);
		ch->gap = 0;
	}
	if (scan_calls(s, ch, from))
		return -ENOMEM;
	if (begins && ch->n)
		chain_owner(s, ch);
	return 0;
}

int ccsg_scan_count(struct ccsg_scan *s, struct ccsg_chain *ch, int last)
{
	s->st->calls += (size_t)ch->n;
	for (int32_t j = ch->first; j < ch->first + ch->n; j++) {
		if (count_call(s, &s->t->calls[j]))
			return -ENOMEM;
		ch->gap |= (uint8_t)ccsg_call_side_lost(s->t, &s->t->calls[j]);
	}
	if (last) {
		scan_end(s, ch);
		ch->kept = (uint8_t)!ccsg_chain_sampled(s->t, ch);
		s->st->kept_chains += ch->kept;
		s->st->kept_complete += ch->kept && !ch->gap;
	}
	return 0;
}

int ccsg_scan_chain(struct ccsg_scan *s, struct ccsg_chain *ch)
{
	if (ccsg_scan_part(s, ch, ch->first, 1))
		return -ENOMEM;
	return ccsg_scan_count(s, ch, 1);
}

void ccsg_dscg_stats_sort(struct ccsg_dscg_stats *st, struct ccsg_trace *t)
{
	tally_sort(&st->failures, t);
	tally_sort(&st->tags, t);
	tally_sort(&st->reply_tags, t);
}

void ccsg_scan_finish(struct ccsg_scan *s)
{
	ccsg_dscg_stats_sort(s->st, s->t);
}

/* from's counts of values of tfrom's strings, added to into's. */
static int tally_merge(struct ccsg_tally *into, struct ccsg_trace *tin,
		       const struct ccsg_tally *from,
		       const struct ccsg_trace *tfrom)
{
	for (size_t i = 0; i < from->n; i++) {
		int32_t str =
			ccsg_trace_intern(tin, tfrom->strings[from->v[i].str]);
		int32_t e;

		if (str < 0 || tally_add(into, str))
			return -ENOMEM;
		e = hashmap_get(&into->index, (uint64_t)str);
		into->v[e].n += from->v[i].n - 1;
	}
	return 0;
}

int ccsg_dscg_stats_merge(struct ccsg_dscg_stats *into, struct ccsg_trace *tin,
			  const struct ccsg_dscg_stats *from,
			  const struct ccsg_trace *tfrom)
{
	into->calls += from->calls;
	into->chains += from->chains;
	into->broken_chains += from->broken_chains;
	into->segments += from->segments;
	into->breaks += from->breaks;
	into->truncated_chains += from->truncated_chains;
	into->no_server += from->no_server;
	into->no_client += from->no_client;
	into->incomplete += from->incomplete;
	into->lost_starts += from->lost_starts;
	into->failed += from->failed;
	into->thread_calls += from->thread_calls;
	into->kept_chains += from->kept_chains;
	into->kept_complete += from->kept_complete;
	if (from->max_depth > into->max_depth)
		into->max_depth = from->max_depth;
	/* spawned_threads: counted once merged (ccsg_spawns_finish()) */
	return tally_merge(&into->failures, tin, &from->failures, tfrom) ||
			       tally_merge(&into->tags, tin, &from->tags,
					   tfrom) ||
			       tally_merge(&into->reply_tags, tin,
					   &from->reply_tags, tfrom)
		       ? -ENOMEM
		       : 0;
}

void ccsg_scan_release(struct ccsg_scan *s)
{
	free(s->ev);
	free(s->stack);
	free(s->placed);
	memset(s, 0, sizeof(*s));
}

void ccsg_dscg_stats_release(struct ccsg_dscg_stats *st)
{
	tally_release(&st->failures);
	tally_release(&st->tags);
	tally_release(&st->reply_tags);
}

int ccsg_dscg_build(struct ccsg_dscg *d, struct ccsg_trace *t)
{
	struct ccsg_dscg_stats *st = &d->stats;
	struct ccsg_scan s;
	int32_t *last = NULL;
	int32_t base = (int32_t)t->ncalls;
	int ret = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->trace = t;
	d->nnodes = t->ncalls + t->nthreads + 1;
	d->main = (int32_t)d->nnodes - 1;
	d->parent = malloc(d->nnodes * sizeof(int32_t));
	d->first_child = malloc(d->nnodes * sizeof(int32_t));
	d->next_sibling = malloc(d->nnodes * sizeof(int32_t));
	last = malloc(d->nnodes * sizeof(int32_t));
	if (ccsg_scan_init(&s, t, st) || !d->parent || !d->first_child ||
	    !d->next_sibling || !last || ccsg_spawns_init(&d->spawns, t))
		goto out;
	memset(d->parent, 0xff, d->nnodes * sizeof(int32_t));
	memset(d->first_child, 0xff, d->nnodes * sizeof(int32_t));
	memset(d->next_sibling, 0xff, d->nnodes * sizeof(int32_t));
	memset(last, 0xff, d->nnodes * sizeof(int32_t));

	st->threads = t->nthreads;
	for (size_t i = 0; i < t->nchains; i++)
		if (ccsg_scan_chain(&s, &t->chains[i]))
			goto out;
	ccsg_scan_finish(&s);
	for (size_t i = 0; i < t->ncalls; i++)
		ccsg_spawns_note(&d->spawns, t, &t->calls[i], (int32_t)i);
	if (ccsg_spawns_finish(t, st))
		goto out;

	/* Threads first, so a process's threads come before its chains. */
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];
		int32_t p = th->spawn_call >= 0 ? th->spawn_call :
			    th->parent_thread >= 0 ? base + th->parent_thread : d->main;

		link_child(d, last, p, base + (int32_t)i);
	}
	for (size_t i = 0; i < t->nchains; i++) {
		const struct ccsg_chain *ch = &t->chains[i];

		for (int32_t j = ch->first; j < ch->first + ch->n; j++) {
			const struct ccsg_call *c = &t->calls[j];

			link_child(d, last,
				   c->parent >= 0   ? c->parent
				   : ch->owner >= 0 ? base + ch->owner
						    : d->main,
				   j);
		}
	}
	ret = 0;
out:
	ccsg_scan_release(&s);
	free(last);
	if (ret)
		ccsg_dscg_release(d);
	return ret;
}

void ccsg_dscg_release(struct ccsg_dscg *d)
{
	ccsg_dscg_stats_release(&d->stats);
	ccsg_spawns_release(&d->spawns);
	free(d->parent);
	free(d->first_child);
	free(d->next_sibling);
	memset(d, 0, sizeof(*d));
}
