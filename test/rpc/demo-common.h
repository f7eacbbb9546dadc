/*
 * demo-common.h - what demo-server and demo-client share: CPU burning,
 * thread CPU and ids, clnt_stat names, the ready file.  Static: each
 * program includes it once.
 */
#ifndef CAUSAL_TEST_RPC_DEMO_COMMON_H
#define CAUSAL_TEST_RPC_DEMO_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#define DEMO_FN static __attribute__((unused))

DEMO_FN long long demo_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* User + system CPU of the whole process (every thread, the tracer's too). */
DEMO_FN long long demo_process_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* Spin until this thread has used us more microseconds of CPU. */
DEMO_FN void demo_burn_us(int us)
{
	long long end = demo_thread_cpu_ns() + us * 1000LL;
	volatile unsigned x = 1;

	while (demo_thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1103515245u + 12345u;
}

DEMO_FN int demo_gettid(void) { return (int)gettid(); }

/* The enumerator's name, as tracedump's rpc_calls.status_name spells it. */
DEMO_FN const char *demo_stat_name(enum clnt_stat s)
{
	static const char *const names[] = {
	    [RPC_SUCCESS] = "RPC_SUCCESS",
	    [RPC_CANTENCODEARGS] = "RPC_CANTENCODEARGS",
	    [RPC_CANTDECODERES] = "RPC_CANTDECODERES",
	    [RPC_CANTSEND] = "RPC_CANTSEND",
	    [RPC_CANTRECV] = "RPC_CANTRECV",
	    [RPC_TIMEDOUT] = "RPC_TIMEDOUT",
	    [RPC_VERSMISMATCH] = "RPC_VERSMISMATCH",
	    [RPC_AUTHERROR] = "RPC_AUTHERROR",
	    [RPC_PROGUNAVAIL] = "RPC_PROGUNAVAIL",
	    [RPC_PROGVERSMISMATCH] = "RPC_PROGVERSMISMATCH",
	    [RPC_PROCUNAVAIL] = "RPC_PROCUNAVAIL",
	    [RPC_CANTDECODEARGS] = "RPC_CANTDECODEARGS",
	    [RPC_SYSTEMERROR] = "RPC_SYSTEMERROR",
	    [RPC_UNKNOWNHOST] = "RPC_UNKNOWNHOST",
	    [RPC_PMAPFAILURE] = "RPC_PMAPFAILURE",
	    [RPC_PROGNOTREGISTERED] = "RPC_PROGNOTREGISTERED",
	    [RPC_FAILED] = "RPC_FAILED",
	    [RPC_UNKNOWNPROTO] = "RPC_UNKNOWNPROTO",
	};

	if ((unsigned)s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "RPC_OTHER";
}

DEMO_FN void demo_die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
DEMO_FN void demo_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * Write text to path atomically (a temporary name, then rename), so a
 * test polling for the file never reads half of it.
 */
DEMO_FN void demo_write_ready(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		demo_die("cannot write '%s': %s", path, strerror(errno));
}

#endif /* CAUSAL_TEST_RPC_DEMO_COMMON_H */
