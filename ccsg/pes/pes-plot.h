/*
 * pes-plot.h - the pictures of `ccsg pes` (time, event and frequency
 * views): SVG written directly, its text as text (so a reader or a test
 * can search it), or PNG drawn with cairo.  Both are laid out alike, with
 * cairo measuring the text.
 *
 * A plot is n points in x order, read through a callback so that a
 * sequence of millions of entries is never copied; they are drawn per
 * pixel column (the least and the greatest y each column holds, joined
 * to the next), so the picture's size and cost do not grow with n.
 *
 * The x axis has "nice" ticks (1, 2 or 5 times a power of ten), or with
 * logx a logarithmic scale (xmin > 0).  The names of the states on the y
 * axis never overlap: when they are too close, every k-th is written.
 */
#ifndef CCSG_PES_PLOT_H
#define CCSG_PES_PLOT_H

#include <stddef.h>

enum pes_plot_mode {
	PES_PLOT_STEP, /* y holds from x_i to x_{i+1} (time view) */
	PES_PLOT_LINE, /* points joined by segments (event view) */
	PES_PLOT_BARS, /* a bar from 0 to y at each x (frequency view) */
};

struct pes_plot {
	const char *title, *xlabel, *ylabel;
	enum pes_plot_mode mode;
	size_t n;
	void (*point)(const void *ctx, size_t i, double *x, double *y);
	const void *ctx;
	double xmin, xmax, ymin, ymax;
	/* names of y = 0, 1, ... on the y axis, or NULL for numbers */
	const char *const *ylabels;
	size_t nylabels;
	int logx; /* a logarithmic x axis; points at x <= 0 are not drawn */
};

/* Draw pl into path, as PNG when png is set, else SVG: 0, or -1 after a
 * message. */
int pes_plot_write(const struct pes_plot *pl, const char *path, int png);

#endif
