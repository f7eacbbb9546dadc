/*
 * guard.c - the limits and deadlines of `ccsg serve`'s connections and
 * the checks of a request's origin (guard.h).  Two lists, each kept in
 * the order of `since` because a connection only ever moves to the end
 * of one: so the next deadline is at a head, and the oldest connection
 * of either state is the first of its list.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "guard.h"

void guard_reset(int fd)
{
	struct linger now = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
}

/* A sending connection, or a waiting one whose last answer the client
 * has not taken by its deadline, is reset. */
static void close_socket(int fd, int reset)
{
	int unsent = 0;

	if (reset || (!ioctl(fd, SIOCOUTQ, &unsent) && unsent > 0))
		guard_reset(fd);
	shutdown(fd, SHUT_RDWR);
}

static void list_init(struct guard_conn *head)
{
	head->prev = head->next = head;
}

static void list_del(struct guard_conn *c)
{
	c->prev->next = c->next;
	c->next->prev = c->prev;
	c->prev = c->next = c;
}

static void list_add_tail(struct guard_conn *head, struct guard_conn *c)
{
	c->prev = head->prev;
	c->next = head;
	head->prev->next = c;
	head->prev = c;
}

void guard_init(struct guard *g, const struct guard_limits *lim)
{
	memset(g, 0, sizeof(*g));
	g->lim = *lim;
	list_init(&g->waiting);
	list_init(&g->sending);
	g->close_fd = close_socket;
}

static int in_list(const struct guard_conn *c)
{
	return c->next != c;
}

/* Told to close: out of the lists, counted; freed by guard_closed(). */
static void shut(struct guard *g, struct guard_conn *c, size_t *why)
{
	list_del(c);
	g->live--;
	(*why)++;
	g->close_fd(c->fd, c->sending);
}

/* The address a connection is counted under: IPv4 (mapped or not) whole,
 * IPv6 by its /64, which one host commonly holds entirely. */
static void addr_key(const struct sockaddr *a, uint8_t key[16])
{
	memset(key, 0, 16);
	if (a && a->sa_family == AF_INET) {
		memcpy(key + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a && a->sa_family == AF_INET6) {
		const struct in6_addr *x =
			&((const struct sockaddr_in6 *)a)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(x)) {
			memcpy(key + 12, x->s6_addr + 12, 4);
		} else {
			memcpy(key, x->s6_addr, 8);
			key[8] = 1; /* never equal to an IPv4 key */
		}
	}
}

/* The first connection of list head (of address key, or any when NULL)
 * but c; NULL when there is none. */
static struct guard_conn *first_of(struct guard_conn *head, const uint8_t *key,
				   const struct guard_conn *c)
{
	for (struct guard_conn *o = head->next; o != head; o = o->next)
		if (o != c && (!key || !memcmp(o->addr, key, 16)))
			return o;
	return NULL;
}

/* The connection to close to make room (guard.h): of the oldest waiting
 * one and the oldest sending one, the older, a waiting one on a tie. */
static struct guard_conn *oldest(struct guard *g, const uint8_t *key,
				 const struct guard_conn *c)
{
	struct guard_conn *w = first_of(&g->waiting, key, c),
			  *s = first_of(&g->sending, key, c);

	return !s || (w && w->since <= s->since) ? w : s;
}

static size_t count_addr(const struct guard *g, const uint8_t *key)
{
	const struct guard_conn *heads[] = { &g->waiting, &g->sending };
	size_t n = 0;

	for (int i = 0; i < 2; i++)
		for (const struct guard_conn *o = heads[i]->next; o != heads[i];
		     o = o->next)
			n += !memcmp(o->addr, key, 16);
	return n;
}

struct guard_conn *guard_open(struct guard *g, int fd, const struct sockaddr *a,
			      int64_t now)
{
	struct guard_conn *c = calloc(1, sizeof(*c)), *o;
	size_t same;

	if (!c) {
		g->close_fd(fd, 0);
		return NULL;
	}
	c->fd = fd;
	c->since = now;
	addr_key(a, c->addr);
	list_add_tail(&g->waiting, c);
	g->live++;
	same = count_addr(g, c->addr);
	for (; same > g->lim.per_ip && (o = oldest(g, c->addr, c)); same--)
		shut(g, o, &g->closed_crowd);
	while (g->live > g->lim.total && (o = oldest(g, NULL, c)))
		shut(g, o, &g->closed_crowd);
	return c;
}

/* c to the end of the sending or the waiting list, unless it was told
 * to close. */
static void move(struct guard *g, struct guard_conn *c, int sending,
		 int64_t now)
{
	if (!c || !in_list(c))
		return;
	list_del(c);
	c->since = now;
	c->sending = sending;
	list_add_tail(sending ? &g->sending : &g->waiting, c);
}

void guard_answering(struct guard *g, struct guard_conn *c, int64_t now)
{
	move(g, c, 1, now);
}

void guard_answered(struct guard *g, struct guard_conn *c, int64_t now)
{
	move(g, c, 0, now);
}

void guard_closed(struct guard *g, struct guard_conn *c)
{
	if (!c)
		return;
	if (in_list(c)) {
		list_del(c);
		g->live--;
	}
	free(c);
}

int64_t guard_tick(struct guard *g, int64_t now)
{
	struct guard_conn *heads[] = { &g->waiting, &g->sending };
	int64_t limits[] = { g->lim.request_ms, g->lim.send_ms };
	int64_t next = -1;

	for (int i = 0; i < 2; i++) {
		while (heads[i]->next != heads[i] &&
		       now - heads[i]->next->since >= limits[i])
			shut(g, heads[i]->next, &g->closed_late);
		if (heads[i]->next != heads[i]) {
			int64_t due = heads[i]->next->since + limits[i] - now;

			if (next < 0 || due < next)
				next = due;
		}
	}
	return next;
}

/* ---- requests ------------------------------------------------------------ */

int guard_loopback_host(const char *h)
{
	/* the name, up to the port */
	size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");

	return (n == 9 && !strncasecmp(h, "localhost", 9)) ||
	       (n == 5 && !strncmp(h, "[::1]", 5)) ||
	       (n >= 4 && !strncmp(h, "127.", 4) &&
		strspn(h, "0123456789.") == n);
}

int guard_same_origin(const char *host, const char *origin,
		      const char *fetch_site)
{
	if (fetch_site && strcasecmp(fetch_site, "same-origin") &&
	    strcasecmp(fetch_site, "none"))
		return 0;
	if (!origin)
		return 1;
	return host && !strncasecmp(origin, "http://", 7) &&
	       !strcasecmp(origin + 7, host);
}
