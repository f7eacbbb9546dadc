/*
 * keep-ring.c - the writer's side of tail keep (keep.h): the ring that
 * holds the records of unsampled chains until their chain is kept or
 * their window is over.
 *
 * The writer alone touches the ring (under the writer lock), so it needs
 * no atomics: the probes pay nothing for it beyond recording as if the
 * chain were sampled.  Its memory (CAUSAL_KEEP_RING_KB) is mapped at the
 * first held record, never in a process without tail keep.  Entries are
 * contiguous, in arrival order; one that does not fit before the end of
 * the ring is preceded by a wrap entry.  When a new record finds no room,
 * the oldest go, counted as overflow when their window was not over.
 */
#include <string.h>
#include <sys/mman.h>

#include "encode.h"
#include "keep.h"

struct held {
	uint64_t at;   /* when the writer took it */
	uint32_t size; /* of the whole entry; 0: wrap to the start */
	uint32_t live; /* 0 once written or let go */
		       /* the record follows, aligned */
};

#define HELD_HDR ((uint32_t)sizeof(struct held))
#define STATS_EVERY_NS 1000000000ull

static struct {
	uint8_t *data;
	uint64_t capacity;
	uint64_t head, tail; /* bytes ever appended, ever released */
	uint64_t seen_version;
	uint64_t stats_at;
	int map_failed;
} ring;
/* the counts, and as last written (a record: a tail of no length) */
static struct rec_keep stats, stats_written;

extern _Atomic uint64_t causal_keep_set_full;

static struct held *entry_at(uint64_t pos)
{
	return (struct held *)(ring.data + (pos & (ring.capacity - 1)));
}

static const struct causal_rec *rec_of(const struct held *h)
{
	return (const struct causal_rec *)(h + 1);
}

static const uint8_t *chain_of(const struct causal_rec *rec)
{
	return ((const struct rec_rpc_probe *)rec)->chain;
}

static int map_ring(void)
{
	uint64_t bytes = (uint64_t)causal_g.cfg.keep_ring_kb << 10;
	void *p;

	if (ring.data || ring.map_failed)
		return ring.data ? 0 : -1;
	/* a power of two, as the offsets wrap by masking */
	while (bytes & (bytes - 1))
		bytes &= bytes - 1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ring.map_failed = 1;
		return -1;
	}
	ring.data = p;
	ring.capacity = bytes;
	return 0;
}

/* Release the oldest entry; it was live: overflow (window not over) or
 * expired. */
static void release_oldest(uint64_t now)
{
	struct held *h = entry_at(ring.tail);

	if (!h->size) { /* wrap */
		ring.tail += ring.capacity - (ring.tail & (ring.capacity - 1));
		return;
	}
	if (h->live) {
		if (h->at + causal_g.cfg.keep_window_ns > now)
			stats.overflow++;
		else
			stats.expired++;
	}
	ring.tail += h->size;
}

int causal_keep_hold(const struct causal_rec *rec)
{
	/* entries a multiple of 16: a wrap entry always fits at the end */
	uint32_t need = (HELD_HDR + rec->size + 15u) & ~15u;
	uint64_t now = causal_now_ns(), off, to_end;
	struct held *h;

	/* a kept chain's record is written at once, unless records held
	 * before it may wait in the ring (a chain kept since the last
	 * round): the merge pairs a start with the end that follows it */
	if (causal_keep_kept(chain_of(rec)) &&
	    causal_keep_version() == ring.seen_version) {
		stats.written++;
		return 0;
	}
	stats.held++;
	if (map_ring() || need > ring.capacity / 4) {
		stats.overflow++;
		return 1;
	}
	off = ring.head & (ring.capacity - 1);
	to_end = ring.capacity - off;
	if (need > to_end) {
		while (ring.head + to_end - ring.tail > ring.capacity)
			release_oldest(now);
		entry_at(ring.head)->size = 0;
		ring.head += to_end;
	}
	while (ring.head + need - ring.tail > ring.capacity)
		release_oldest(now);
	h = entry_at(ring.head);
	h->at = now;
	h->size = need;
	h->live = 1;
	memcpy(h + 1, rec, rec->size);
	ring.head += need;
	return 1;
}

/* Write h's record into the log; 0 when the log has no room yet. */
static int write_held(struct causal_log_file *lf, struct held *h, int final)
{
	const struct causal_rec *rec = rec_of(h);
	size_t bytes = CAUSAL_ENCODED_MAX(rec->size);

	if (atomic_load_explicit(&lf->failed, memory_order_relaxed)) {
		causal_log_file_lose(lf, rec->type);
	} else {
		if (final)
			causal_log_file_reserve(lf, bytes);
		else if (causal_log_file_room(lf, bytes))
			return 0;
		if (causal_encode_record(&lf->pk, rec) == 0)
			causal_log_file_count(lf, rec->type);
	}
	h->live = 0;
	stats.written++;
	return 1;
}

/* The live records of kept chains into the log; 0 if some must wait. */
static int write_kept(struct causal_log_file *lf, int final)
{
	uint64_t pos = ring.tail;

	while (pos != ring.head) {
		struct held *h = entry_at(pos);

		if (!h->size) {
			pos += ring.capacity - (pos & (ring.capacity - 1));
			continue;
		}
		if (h->live && causal_keep_kept(chain_of(rec_of(h))) &&
		    !write_held(lf, h, final))
			return 0;
		pos += h->size;
	}
	return 1;
}

static void write_stats(struct causal_log_file *lf, uint64_t now, int final)
{
	struct rec_keep *s = &stats;

	s->chains = causal_keep_version();
	s->set_full = atomic_load_explicit(&causal_keep_set_full,
					   memory_order_relaxed);
	causal_keepcast_counts(&s->cast, &s->cast_dropped, &s->learned);
	if (!memcmp(s, &stats_written, sizeof(*s)) ||
	    (!final && now - ring.stats_at < STATS_EVERY_NS))
		return;
	if (final)
		causal_log_file_reserve(lf, 128);
	else if (causal_log_file_room(lf, 128))
		return;
	s->hdr.type = CAUSAL_REC_KEEP;
	s->hdr.size = sizeof(*s);
	s->hdr.mono_ns = now;
	causal_encode_record(&lf->pk, &s->hdr);
	causal_log_file_count(lf, CAUSAL_REC_KEEP);
	stats_written = *s;
	ring.stats_at = now;
}

void causal_keep_after_fork(void)
{
	ring.head = ring.tail = 0;
	memset(&stats, 0, sizeof(stats));
	memset(&stats_written, 0, sizeof(stats_written));
}

void causal_keep_round(struct causal_log_file *lf, int final)
{
	uint64_t now = causal_now_ns(), version;

	if (!causal_keep_enabled())
		return;
	causal_keep_tidy(now);
	version = causal_keep_version();
	if (ring.data && (version != ring.seen_version || final) &&
	    write_kept(lf, final))
		ring.seen_version = version;
	/* what has waited its window goes, kept or not: a kept one was
	 * written above, or waits for room and goes as overflow */
	while (ring.tail != ring.head) {
		struct held *h = entry_at(ring.tail);

		if (h->size && h->live && !final &&
		    h->at + causal_g.cfg.keep_window_ns > now)
			break;
		release_oldest(final ? UINT64_MAX : now);
	}
	write_stats(lf, now, final);
}
