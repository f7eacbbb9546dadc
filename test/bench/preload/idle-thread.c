/*
 * idle-thread.so - preloaded into an untraced program, starts one thread
 * that sleeps for the program's whole life.  bench-rpc's second baseline:
 * what a single-threaded program pays once it has another thread, as it
 * has once libcausal.so starts its writer, before any record is written
 * (the kernel takes a reference on each file at every read, write and
 * poll once the file table is shared; a sigprocmask retargets pending
 * signals to the other threads; glibc switches cancellation on around
 * each blocking call).
 */
#include <pthread.h>
#include <unistd.h>

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void start_idle_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, sleep_forever, NULL) == 0)
		pthread_detach(t);
}
