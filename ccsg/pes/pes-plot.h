/*
 * pes-plot.h - the pictures of `ccsg pes` (time, event and frequency
 * views) drawn with cairo, as SVG or PNG.
 *
 * A plot is n points in x order, read through a callback so that a
 * sequence of millions of entries is never copied; they are drawn per
 * pixel column (the least and the greatest y each column holds, joined
 * to the next), so the picture's size and cost do not grow with n.
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
};

/* Draw pl into path, as PNG when png is set, else SVG: 0, or -1 after a
 * message. */
int pes_plot_write(const struct pes_plot *pl, const char *path, int png);

#endif
