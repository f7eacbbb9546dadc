/*
 * diag-client - the client of the planted bottlenecks (diag.x): calls
 * REQUEST on the front server N times, one after the other.
 *
 *   diag-client PORT N        (REQUEST's TCP port on 127.0.0.1)
 *
 * Prints "latency request ns L" per call (the wall time around the stub
 * call, CLOCK_MONOTONIC); exits 0 when every call succeeded.  Sleeps
 * DIAG_GAP_US between calls (diag-knobs.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include <rpc/rpc.h>

#include "diag-knobs.h"
#include "diag.h" /* rpcgen's, of diag.x */

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct timeval timeout = { 60, 0 };
	int sock = RPC_ANYSOCK, n;
	long gap_us = diag_knob("DIAG_GAP_US", 0);
	CLIENT *c;

	if (argc != 3 || atoi(argv[1]) <= 0 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: diag-client PORT N\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clnttcp_create(&sin, DIAG_PROG, DIAG_VERS, &sock, 0, 0);
	if (!c) {
		clnt_pcreateerror("diag-client");
		return 1;
	}
	clnt_control(c, CLSET_TIMEOUT, (char *)&timeout);
	for (int i = 0; i < n; i++) {
		long long t0 = diag_ns(CLOCK_MONOTONIC);
		int r = -1;
		enum clnt_stat st = request_1(&i, &r, c);

		if (st != RPC_SUCCESS || r != i) {
			clnt_perrno(st);
			fprintf(stderr, "\ndiag-client: request %d failed\n",
				i);
			clnt_destroy(c);
			return 1;
		}
		printf("latency request ns %lld\n",
		       diag_ns(CLOCK_MONOTONIC) - t0);
		if (gap_us)
			diag_sleep_us(gap_us);
	}
	clnt_destroy(c);
	return 0;
}
