/*
 * consumer.c - the coordinator's event consumer (Figure 9 of the
 * monitoring paper).
 */
#include "internal.h"

void causal_consumer_start(void);

void causal_consumer_start(void)
{
	/* the coordinator channel comes with step 3 of issue 12 */
}
