/*
 * export-buf.c - the exports' output buffer (export-buf.h): JSON strings
 * appended, and the writer thread.  The caller fills 64 KiB blocks, the
 * thread writes them in order, so that writing a gigabyte (the kernel
 * copying it into the page cache: a third of the chrome export's time)
 * runs on the other CPU beside the formatting.
 *
 * XB_BLOCKS blocks in a ring: the caller fills one, passes it (waiting
 * only when every other block is still queued) and takes the next free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "export-buf.h"
#include "json.h"

#define XB_BLOCKS 8

struct xb_pipe {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a block queued, a block written, the end */
	FILE *f;
	char *block[XB_BLOCKS];
	size_t len[XB_BLOCKS];
	unsigned head;	 /* next to write */
	unsigned queued; /* blocks passed and not yet written */
	int ending;
	int err; /* the errno of a write that failed */
};

static void *writer(void *arg)
{
	struct xb_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		unsigned i;
		size_t n;

		while (!p->queued && !p->ending)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->queued)
			break;
		i = p->head;
		n = p->len[i];
		pthread_mutex_unlock(&p->lock);
		/* a failed write is said once, at the end; the rest are
		 * still taken off the ring, so the caller never waits */
		if (!p->err && n && fwrite(p->block[i], 1, n, p->f) != n)
			p->err = errno ? errno : EIO; /* why, for the caller */
		pthread_mutex_lock(&p->lock);
		p->head = (i + 1) % XB_BLOCKS;
		p->queued--;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int xb_pipe_start(struct xbuf *x)
{
	struct xb_pipe *p = calloc(1, sizeof(*p));
	int k;

	if (!p)
		return -ENOMEM;
	for (k = 0; k < XB_BLOCKS; k++)
		if (!(p->block[k] = malloc(XBUF_SIZE)))
			goto fail;
	p->f = x->f;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, writer, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		goto fail;
	}
	/* what the caller has buffered so far goes first */
	memcpy(p->block[0], x->b, x->n);
	x->b = p->block[0];
	x->pipe = p;
	return 0;
fail:
	for (k = 0; k < XB_BLOCKS; k++)
		free(p->block[k]);
	free(p);
	return -EAGAIN;
}

void xb_pipe_pass(struct xbuf *x)
{
	struct xb_pipe *p = x->pipe;
	unsigned i;

	if (!x->n)
		return;
	pthread_mutex_lock(&p->lock);
	i = (p->head + p->queued) % XB_BLOCKS; /* x->b is block i */
	p->len[i] = x->n;
	p->queued++;
	pthread_cond_broadcast(&p->cond);
	/* the next block is free once fewer than all are queued */
	while (p->queued == XB_BLOCKS)
		pthread_cond_wait(&p->cond, &p->lock);
	x->b = p->block[(i + 1) % XB_BLOCKS];
	pthread_mutex_unlock(&p->lock);
	x->n = 0;
}

void xb_pipe_end(struct xbuf *x)
{
	struct xb_pipe *p = x->pipe;

	if (!p)
		return;
	xb_pipe_pass(x);
	pthread_mutex_lock(&p->lock);
	p->ending = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	if (p->err) {
		x->err = 1;
		errno = p->err; /* this thread's, to say why */
	}
	x->b = x->mem;
	x->n = 0;
	x->pipe = NULL;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	for (int k = 0; k < XB_BLOCKS; k++)
		free(p->block[k]);
	free(p);
}

/* ---- JSON strings -------------------------------------------------------- */

/* Plain printable ASCII, the common case, needs no escaping. */
static int plain(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			return 0;
	*len = (size_t)(p - (const unsigned char *)s);
	return 1;
}

void xb_json(struct xbuf *x, const char *s)
{
	size_t n;

	if (s && plain(s, &n)) {
		xb_ch(x, '"');
		xb_put(x, s, n);
		xb_ch(x, '"');
		return;
	}
	/* through the buffer (never x->f itself: a writer thread may own
	 * it, above) */
	xb_ch(x, '"');
	xb_json_body(x, s);
	xb_ch(x, '"');
}

void xb_json_body(struct xbuf *x, const char *s)
{
	char *p = NULL;
	size_t n = 0;
	FILE *m;

	if (!s || plain(s, &n)) {
		xb_put(x, s ? s : "", n);
		return;
	}
	/* escaped apart, then without its quotes */
	if (!(m = open_memstream(&p, &n))) {
		x->err = 1;
		return;
	}
	json_cstr(m, s);
	if (fclose(m) || n < 2) {
		x->err = 1;
	} else {
		xb_put(x, p + 1, n - 2);
	}
	free(p);
}
