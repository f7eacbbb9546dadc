/*
 * sample.h - head sampling, for the library's files: the decision is
 * defined once, in causal/sample.h, which the tools share.
 */
#ifndef CAUSAL_SHIM_RPC_SAMPLE_H
#define CAUSAL_SHIM_RPC_SAMPLE_H

#include "causal/sample.h"

#endif
