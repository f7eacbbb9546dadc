/*
 * pes-plot.c - the views of `ccsg pes` as SVG or PNG, with cairo
 * (pes-plot.h).
 */
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pes-plot.h"
#include "usage.h"

#define WIDTH 1000
#define HEIGHT 520
#define LEFT 130
#define RIGHT 20
#define TOP 36
#define BOTTOM 56
/* state names on the y axis up to this many, numbers beyond */
#define MAX_YLABELS 40

struct frame {
	double x0, x1, y0, y1; /* data range */
	double pw, ph;	       /* plot area in pixels */
};

static double px(const struct frame *f, double x)
{
	return LEFT +
	       (f->x1 > f->x0 ? (x - f->x0) / (f->x1 - f->x0) : 0) * f->pw;
}

static double py(const struct frame *f, double y)
{
	return TOP + f->ph -
	       (f->y1 > f->y0 ? (y - f->y0) / (f->y1 - f->y0) : 0) * f->ph;
}

static void text(cairo_t *cr, double x, double y, const char *s, double align)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - align * e.width, y);
	cairo_show_text(cr, s);
}

static void axes(cairo_t *cr, const struct pes_plot *pl, const struct frame *f)
{
	char buf[64];

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, LEFT, TOP, f->pw, f->ph);
	cairo_stroke(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	for (int k = 0; k <= 5; k++) {
		double x = f->x0 + (f->x1 - f->x0) * k / 5;

		snprintf(buf, sizeof(buf), "%.6g", x);
		cairo_move_to(cr, px(f, x), TOP + f->ph);
		cairo_line_to(cr, px(f, x), TOP + f->ph + 4);
		cairo_stroke(cr);
		text(cr, px(f, x), TOP + f->ph + 16, buf, 0.5);
	}
	if (pl->ylabels && pl->nylabels <= MAX_YLABELS) {
		for (size_t k = 0; k < pl->nylabels; k++) {
			cairo_move_to(cr, LEFT - 4, py(f, (double)k));
			cairo_line_to(cr, LEFT, py(f, (double)k));
			cairo_stroke(cr);
			text(cr, LEFT - 6, py(f, (double)k) + 4, pl->ylabels[k],
			     1);
		}
	} else {
		for (int k = 0; k <= 5; k++) {
			double y = f->y0 + (f->y1 - f->y0) * k / 5;

			snprintf(buf, sizeof(buf), "%.4g", y);
			cairo_move_to(cr, LEFT - 4, py(f, y));
			cairo_line_to(cr, LEFT, py(f, y));
			cairo_stroke(cr);
			text(cr, LEFT - 6, py(f, y) + 4, buf, 1);
		}
	}
	text(cr, LEFT + f->pw / 2, HEIGHT - 12, pl->xlabel, 0.5);
	cairo_save(cr);
	cairo_move_to(cr, 14, TOP + f->ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	cairo_show_text(cr, pl->ylabel);
	cairo_restore(cr);
	cairo_set_font_size(cr, 14);
	text(cr, LEFT + f->pw / 2, 22, pl->title, 0.5);
}

/* The points, per pixel column: the extent of y in each column, joined to
 * the next column at the last y. */
static void curve(cairo_t *cr, const struct pes_plot *pl, const struct frame *f)
{
	long col = -1;
	double lo = 0, hi = 0, last = 0;

	cairo_set_source_rgb(cr, 0.1, 0.3, 0.7);
	cairo_set_line_width(cr, 1);
	for (size_t i = 0; i < pl->n; i++) {
		double x, y;

		pl->point(pl->ctx, i, &x, &y);
		long c = lround(px(f, x));
		if (pl->mode == PES_PLOT_BARS) {
			if (c != col && col >= 0) {
				cairo_move_to(cr, col + 0.5, py(f, 0));
				cairo_line_to(cr, col + 0.5, py(f, hi));
			}
			if (c != col)
				hi = y;
			else if (y > hi)
				hi = y;
			col = c;
			continue;
		}
		if (c != col) {
			if (col >= 0) {
				if (hi > lo) {
					cairo_move_to(cr, col + 0.5, py(f, lo));
					cairo_line_to(cr, col + 0.5, py(f, hi));
				}
				/* a step holds the last y up to the new x */
				cairo_move_to(cr, col + 0.5, py(f, last));
				cairo_line_to(cr, c + 0.5,
					      py(f, pl->mode == PES_PLOT_STEP
							    ? last
							    : y));
			}
			col = c;
			lo = hi = pl->mode == PES_PLOT_STEP && i ? last : y;
		}
		if (y < lo)
			lo = y;
		if (y > hi)
			hi = y;
		last = y;
	}
	if (col >= 0) {
		if (pl->mode == PES_PLOT_BARS) {
			cairo_move_to(cr, col + 0.5, py(f, 0));
			cairo_line_to(cr, col + 0.5, py(f, hi));
		} else {
			if (hi > lo) {
				cairo_move_to(cr, col + 0.5, py(f, lo));
				cairo_line_to(cr, col + 0.5, py(f, hi));
			}
			if (pl->mode == PES_PLOT_STEP) {
				cairo_move_to(cr, col + 0.5, py(f, last));
				cairo_line_to(cr, px(f, f->x1), py(f, last));
			}
		}
	}
	cairo_stroke(cr);
}

int pes_plot_write(const struct pes_plot *pl, const char *path, int png)
{
	struct frame f = { pl->xmin,
			   pl->xmax,
			   pl->ymin,
			   pl->ymax,
			   WIDTH - LEFT - RIGHT,
			   HEIGHT - TOP - BOTTOM };
	cairo_surface_t *sf;
	cairo_status_t st;
	cairo_t *cr;

	if (png)
		sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH,
						HEIGHT);
	else
		sf = cairo_svg_surface_create(path, WIDTH, HEIGHT);
	if ((st = cairo_surface_status(sf))) {
		cairo_surface_destroy(sf);
		cairo_debug_reset_static_data();
		return fail("cannot write '%s': %s", path,
			    cairo_status_to_string(st));
	}
	cr = cairo_create(sf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	/* a little room above and below the states */
	if (pl->mode != PES_PLOT_BARS) {
		f.y0 -= 0.5;
		f.y1 += 0.5;
	}
	axes(cr, pl, &f);
	cairo_rectangle(cr, LEFT, TOP, f.pw, f.ph);
	cairo_clip(cr);
	curve(cr, pl, &f);
	cairo_destroy(cr);
	cairo_surface_flush(sf);
	if (png)
		st = cairo_surface_write_to_png(sf, path);
	else {
		cairo_surface_finish(sf);
		st = cairo_surface_status(sf);
	}
	cairo_surface_destroy(sf);
	/* cairo and fontconfig keep font caches for the process's life:
	 * free them, so that a plot leaves nothing behind (LeakSanitizer) */
	cairo_debug_reset_static_data();
	FcFini();
	if (st)
		return fail("cannot write '%s': %s", path,
			    cairo_status_to_string(st));
	return 0;
}
