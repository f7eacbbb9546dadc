/*
 * rpc-forks.c - join the reply a fork child sent to the call its parent
 * was serving (rpc-forks.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "rpc-forks.h"
#include "rpc-side.h"

/* A fork of a fork of ...: deeper than this is not followed. */
#define MAX_GENERATIONS 64

void rpc_forks_init(struct rpc_forks *f)
{
	memset(f, 0, sizeof(*f));
}

void rpc_forks_release(struct rpc_forks *f)
{
	free(f->procs);
	hashmap_release(&f->by_uuid);
	memset(f, 0, sizeof(*f));
}

size_t rpc_forks_bytes(const struct rpc_forks *f)
{
	return f->cap * sizeof(*f->procs);
}

static uint64_t uuid_key(const uint8_t *uuid)
{
	return hash_fnv(HASH_FNV_SEED, uuid, CAUSAL_UUID_LEN);
}

/* The procs index of uuid, -1 if not loaded. */
static int32_t proc_by_uuid(const struct rpc_forks *f, const uint8_t *uuid)
{
	int32_t i;

	/* a key taken by another uuid moves to the next one */
	for (uint64_t h = uuid_key(uuid);
	     (i = hashmap_get(&f->by_uuid, h)) >= 0; h++)
		if (!memcmp(f->procs[i].uuid, uuid, CAUSAL_UUID_LEN))
			return i;
	return -1;
}

int rpc_forks_process(struct rpc_forks *f, uint32_t proc_id,
		      const uint8_t *uuid, const uint8_t *parent)
{
	struct rpc_fork_proc *p;
	uint64_t h = uuid_key(uuid);

	if (f->n >= INT32_MAX || GROW(f->procs, f->cap, f->n + 1))
		return -ENOMEM;
	while (hashmap_get(&f->by_uuid, h) >= 0)
		h++;
	if (hashmap_put(&f->by_uuid, h, (int32_t)f->n) < 0)
		return -ENOMEM;
	p = &f->procs[f->n++];
	p->proc_id = proc_id;
	memcpy(p->uuid, uuid, CAUSAL_UUID_LEN);
	p->has_parent = parent != NULL;
	if (parent)
		memcpy(p->parent, parent, CAUSAL_UUID_LEN);
	return 0;
}

/* The procs index of proc_id (they come in order), -1 if not loaded. */
static int32_t proc_by_id(const struct rpc_forks *f, uint32_t proc_id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->procs[mid].proc_id < proc_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->procs[lo].proc_id == proc_id ? (int32_t)lo : -1;
}

/* Was process child forked from ancestor, or from one of its children? */
static bool forked_from(const struct rpc_forks *f, uint32_t child,
			uint32_t ancestor)
{
	int32_t i = proc_by_id(f, child);

	for (int gen = 0; i >= 0 && gen < MAX_GENERATIONS; gen++) {
		if (!f->procs[i].has_parent)
			return false;
		i = proc_by_uuid(f, f->procs[i].parent);
		if (i >= 0 && f->procs[i].proc_id == ancestor)
			return true;
	}
	return false;
}

static uint64_t call_key(const struct rpc_side *s)
{
	return hash64(s->function) ^
	       ((uint64_t)s->chain * 0x9e3779b97f4a7c15ULL);
}

static bool is_child_end(const struct rpc_side *s)
{
	return !s->start.has && s->end.has &&
	       s->end.fork == CAUSAL_SKEL_FORK_CHILD;
}

/* The reply of child end c goes into handed side s. */
static void take_reply(struct rpc_side *s, struct rpc_side *c)
{
	s->end.event = c->end.event;
	s->end.mono = c->end.mono;
	s->end.mono_exit = c->end.mono_exit;
	s->end.fork = CAUSAL_SKEL_FORK_CHILD;
	s->status = c->status;
	s->results_bytes = c->results_bytes;
	s->reply_proc = c->proc_id;
	c->used = true;
}

int64_t rpc_forks_join(const struct rpc_forks *f, struct rpc_side *servers,
		       size_t n)
{
	struct hashmap handed = { 0 };
	int64_t joined = 0;
	size_t i;

	for (i = 0; i < n && !is_child_end(&servers[i]); i++)
		;
	if (i == n)
		return 0; /* the usual case: no reply from a fork child */
	/* the handed sides, by (chain, function), in row order */
	for (i = 0; i < n; i++) {
		const struct rpc_side *s = &servers[i];
		uint64_t h = call_key(s);

		if (!s->start.has || !s->end.has ||
		    s->end.fork != CAUSAL_SKEL_FORK_HANDED)
			continue;
		while (hashmap_get(&handed, h) >= 0)
			h++;
		if (hashmap_put(&handed, h, (int32_t)i) < 0) {
			hashmap_release(&handed);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++) {
		struct rpc_side *c = &servers[i];
		int32_t j;

		if (!is_child_end(c))
			continue;
		for (uint64_t h = call_key(c);
		     (j = hashmap_get(&handed, h)) >= 0; h++) {
			struct rpc_side *s = &servers[j];

			if (s->chain == c->chain &&
			    s->function == c->function && !s->reply_proc &&
			    forked_from(f, c->proc_id, s->proc_id)) {
				take_reply(s, c);
				joined++;
				break;
			}
		}
	}
	hashmap_release(&handed);
	return joined;
}
