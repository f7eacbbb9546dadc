/*
 * pes-output.h - what `ccsg pes` writes: the model as text or JSON, the
 * time and event views as CSV or JSON data or as pictures, the frequency
 * view likewise.  The formats are in docs/pes.md ("Program execution
 * sequences").
 */
#ifndef CCSG_PES_OUTPUT_H
#define CCSG_PES_OUTPUT_H

#include <stdio.h>

#include "pes.h"

enum pes_view { PES_VIEW_TIME, PES_VIEW_EVENT, PES_VIEW_FREQ };
enum pes_out {
	PES_OUT_TEXT,
	PES_OUT_JSON,
	PES_OUT_CSV,
	PES_OUT_SVG,
	PES_OUT_PNG,
	PES_OUT_PES
};

/* The model of p; with syn (a simulation of it) and its model msyn, the
 * comparison of the two.  TEXT or JSON. */
int pes_print_model(FILE *out, const struct pes *p, const struct pes_model *m,
		    const struct pes *syn, const struct pes_model *msyn,
		    enum pes_out fmt);

/* The time or event view: CSV or JSON to out, SVG or PNG to path. */
int pes_print_view(FILE *out, const char *path, const struct pes *p,
		   enum pes_view view, enum pes_out fmt);

/* The frequency view's axis in a picture: by default linear, from 0 to
 * where PES_FREQ_SHARE of the power lies below (the mean left out). */
#define PES_FREQ_SHARE 0.99
enum {
	PES_FREQ_LOG = 1, /* a logarithmic frequency axis (from bin 1) */
	PES_FREQ_ALL = 2, /* up to the Nyquist frequency (the last bin) */
};

/* The frequency view: power[0 .. nf) every bin (Hz in the time domain,
 * cycles per event in the event domain); axis: PES_FREQ_* for SVG and
 * PNG. */
int pes_print_freq(FILE *out, const char *path, const struct pes *p,
		   const double *power, size_t nf, double bin, int time_domain,
		   const char *signal, unsigned axis, enum pes_out fmt);

#endif
