/*
 * chunk-queue.h - a bounded queue of record chunks from one producer
 * thread (the merge reader) to one consumer thread (the merge store).
 *
 * A chunk carries up to CHUNK records of one log file, their bytes copied
 * into the chunk's own arena (the decompression buffer is reused frame
 * after frame).  The last chunk of a file has eof set and
 * carries how the read ended and the file's process row.  At most
 * CHUNK_QUEUE_LEN chunks wait in the queue, which bounds the memory the
 * reader can run ahead by; chunks are recycled, not freed, once stored.
 *
 * The consumer must take chunks until it has seen every file's eof chunk,
 * or call chunk_queue_cancel() to make the producer stop; only then may
 * the two threads be joined and the queue released.
 */
#ifndef TRACEDUMP_CHUNK_QUEUE_H
#define TRACEDUMP_CHUNK_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "logread.h"

#define CHUNK (BATCH * 64)
#define CHUNK_QUEUE_LEN 4	/* chunks in flight: bounds the memory */

struct chunk_rec {
	uint64_t seq, type, tid, mono;
	size_t off, len;	/* the record's bytes in the chunk's buf */
	unsigned part;		/* logread_record's: of a PAIR's bytes */
	bool next;		/* a NEXT pair's bytes: its values (struct
				 * pair_next_values) follow them in buf */
};

struct chunk {
	int n;
	struct chunk_rec rec[CHUNK];
	uint8_t *buf;
	size_t used, cap;
	bool eof;			/* the file's last chunk: */
	int rc;				/* logread_file() or a STOP_* */
	struct logread_result res;
	struct proc p;			/* owned by the chunk until stored */
	struct chunk *next_free;
};

struct chunk_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct chunk *slot[CHUNK_QUEUE_LEN];
	size_t head, n;
	struct chunk *free;		/* recycled chunks */
	bool cancel;			/* set by the consumer on failure */
};

/* 0, or -ENOMEM. */
int chunk_queue_init(struct chunk_queue *q);
/* Free the queue and every chunk still in it or recycled. */
void chunk_queue_release(struct chunk_queue *q);

/*
 * Either thread: an empty chunk (n, used and eof reset; buf kept),
 * recycled when possible; NULL when out of memory.
 */
struct chunk *chunk_queue_get(struct chunk_queue *q);
/* Either thread: recycle c, releasing its process row. */
void chunk_queue_put(struct chunk_queue *q, struct chunk *c);

/*
 * Producer: hand c over, waiting for room.  NULL tells the consumer the
 * producer ran out of memory.  -ECANCELED (c freed) once the consumer
 * cancelled, else 0.
 */
int chunk_queue_push(struct chunk_queue *q, struct chunk *c);
/* Consumer: the oldest chunk, waiting for one; NULL as pushed. */
struct chunk *chunk_queue_pop(struct chunk_queue *q);

/* Consumer: give up; the producer's waits and pushes fail from now on. */
void chunk_queue_cancel(struct chunk_queue *q);

/*
 * Producer: whether the consumer gave up.  Without the lock, once per
 * record: a stale read only delays the stop.
 */
static inline bool chunk_queue_cancelled(struct chunk_queue *q)
{
	return __atomic_load_n(&q->cancel, __ATOMIC_RELAXED);
}

#endif
