/*
 * figure1-client - the main of Figure 1 of the CPU paper: calls foo on the
 * server of role A (figure1-server -R A) through rpcgen's stub foo_1().
 *
 *   figure1-client PORT        (foo's TCP port on 127.0.0.1)
 *
 * Prints "foo = N" (the say_it calls foo made, 3), "latency foo ns N"
 * (the wall time around the stub call, CLOCK_MONOTONIC) and, as it ends,
 * "cpu main tid T us U" (all the CPU its thread used, by its own clock,
 * as figure1-server does); exits 0 when the call succeeded.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "figure1-cpu.h"
#include "figure1.h" /* rpcgen's, of figure1.x */

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct timeval timeout = {60, 0};
	int sock = RPC_ANYSOCK, n = -1;
	long long t0;
	enum clnt_stat st;
	CLIENT *c;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: figure1-client PORT\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clnttcp_create(&sin, FIG1_PROG, FIG1_VERS, &sock, 0, 0);
	if (!c) {
		clnt_pcreateerror("figure1-client");
		return 1;
	}
	clnt_control(c, CLSET_TIMEOUT, (char *)&timeout);
	t0 = fig1_wall_ns();
	st = foo_1(NULL, &n, c);
	t0 = fig1_wall_ns() - t0;
	if (st != RPC_SUCCESS) {
		clnt_perrno(st);
		fputc('\n', stderr);
		clnt_destroy(c);
		return 1;
	}
	printf("foo = %d\nlatency foo ns %lld\n", n, t0);
	clnt_destroy(c);
	printf("cpu main tid %d us %lld\n", (int)gettid(),
	       fig1_thread_cpu_ns() / 1000);
	return n == 3 ? 0 : 1;
}
