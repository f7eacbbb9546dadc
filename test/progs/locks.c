/*
 * locks - takes mutexes and a rwlock in known ways, for the LOCK records'
 * end-to-end suite (check-e2e-locks.c), and says what it did.
 *
 *   locks [N]        (default 1000)
 *
 * 1. main alone: N pthread_mutex_lock + unlock of mutex a (never busy);
 * 2. main holds b while a second thread tries it: pthread_mutex_trylock
 *    (EBUSY), then pthread_mutex_timedlock with a 20 ms timeout
 *    (ETIMEDOUT), then pthread_mutex_lock, which waits until main lets go
 *    (main releases b once the thread said it is about to block, and a
 *    while later);
 * 3. rwlock c: read-locked and unlocked, then write-locked and unlocked.
 *
 * Prints "a ADDR b ADDR c ADDR" (the locks' addresses), then
 * "a_pairs N", "b_trylock R", "b_timedlock R", "b_lock R" (the return
 * values), and "done".
 */
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t c = PTHREAD_RWLOCK_INITIALIZER;
static int try_ret = -1, timed_ret = -1, lock_ret = -1;
static volatile int about_to_block;

static void *contender(void *arg)
{
	struct timespec until;

	(void)arg;
	try_ret = pthread_mutex_trylock(&b);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 20 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	timed_ret = pthread_mutex_timedlock(&b, &until);
	about_to_block = 1;
	lock_ret = pthread_mutex_lock(&b);
	if (!lock_ret)
		pthread_mutex_unlock(&b);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t th;

	printf("a %lu b %lu c %lu\n", (unsigned long)(uintptr_t)&a,
	       (unsigned long)(uintptr_t)&b, (unsigned long)(uintptr_t)&c);
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&a);
		pthread_mutex_unlock(&a);
	}
	printf("a_pairs %d\n", n);

	pthread_mutex_lock(&b);
	if (pthread_create(&th, NULL, contender, NULL)) {
		perror("pthread_create");
		return 1;
	}
	while (!about_to_block)
		usleep(1000);
	usleep(50 * 1000); /* it is blocked in pthread_mutex_lock by now */
	pthread_mutex_unlock(&b);
	pthread_join(th, NULL);
	printf("b_trylock %d\nb_timedlock %d\nb_lock %d\n", try_ret, timed_ret,
	       lock_ret);

	pthread_rwlock_rdlock(&c);
	pthread_rwlock_unlock(&c);
	pthread_rwlock_wrlock(&c);
	pthread_rwlock_unlock(&c);
	printf("done\n");
	return try_ret == EBUSY && timed_ret == ETIMEDOUT && lock_ret == 0 ? 0
									   : 1;
}
