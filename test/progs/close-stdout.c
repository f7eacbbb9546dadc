/*
 * close-stdout - prints a line, closes its standard output 200 ms later
 * (the tracer's threads are up by then) and runs on until it is killed:
 * its reader must see the end of the output while it runs, as a daemon's
 * terminal or a pipe's reader does.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec up = { 0, 200000000 };

	puts("closing");
	fflush(stdout);
	nanosleep(&up, NULL);
	close(STDOUT_FILENO);
	for (;;)
		pause();
}
