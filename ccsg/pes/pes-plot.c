/*
 * pes-plot.c - the views of `ccsg pes` as SVG or PNG (pes-plot.h).
 *
 * A pen draws either on a cairo image (PNG) or writes SVG elements, so
 * that the SVG keeps its text as text; in both cases cairo measures the
 * text, which places the state names and the margin they need.
 */
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output-escape.h"
#include "pes-plot.h"
#include "usage.h"

#define WIDTH 1000
#define HEIGHT 520
#define RIGHT 24
#define TOP 36
#define BOTTOM 56
#define LABEL_SIZE 11
#define TITLE_SIZE 14
/* the baselines of two state names at least this far apart: the names'
 * boxes (ascent and descent, some 1.2 times the size) never meet */
#define LABEL_SPACING (1.35 * LABEL_SIZE)
/* state names wider than this are shortened in the middle */
#define LABEL_MAX_WIDTH 280
#define LEFT_MIN 80
#define MAX_TICKS 64

struct pen {
	cairo_t *cr; /* draws the PNG, or only measures text for the SVG */
	FILE *svg;   /* the SVG being written, or NULL */
	int open;    /* an SVG path is being written */
	unsigned rgb;
};

struct frame {
	double x0, x1, y0, y1; /* data range */
	double left, pw, ph;   /* plot area in pixels */
	int logx;
};

static double px(const struct frame *f, double x)
{
	double a = f->x0, b = f->x1;

	if (f->logx) {
		if (x <= 0)
			return -1; /* off the plot */
		x = log10(x), a = log10(a), b = log10(b);
	}
	return f->left + (b > a ? (x - a) / (b - a) : 0) * f->pw;
}

static double py(const struct frame *f, double y)
{
	return TOP + f->ph -
	       (f->y1 > f->y0 ? (y - f->y0) / (f->y1 - f->y0) : 0) * f->ph;
}

static void pen_color(struct pen *pn, unsigned rgb)
{
	pn->rgb = rgb;
	cairo_set_source_rgb(pn->cr, (rgb >> 16) / 255.0,
			     (rgb >> 8 & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

static void pen_move(struct pen *pn, double x, double y, int line)
{
	if (!pn->svg) {
		(line ? cairo_line_to : cairo_move_to)(pn->cr, x, y);
		return;
	}
	if (!pn->open++)
		fputs("<path d=\"", pn->svg);
	fprintf(pn->svg, "%c%.1f %.1f", line ? 'L' : 'M', x, y);
}

static void pen_segment(struct pen *pn, double x0, double y0, double x1,
			double y1)
{
	pen_move(pn, x0, y0, 0);
	pen_move(pn, x1, y1, 1);
}

static void pen_stroke(struct pen *pn)
{
	if (!pn->svg) {
		cairo_stroke(pn->cr);
	} else if (pn->open) {
		fprintf(pn->svg,
			"\" fill=\"none\" stroke=\"#%06x\" "
			"stroke-width=\"1\"/>\n",
			pn->rgb);
		pn->open = 0;
	}
}

static double text_width(struct pen *pn, const char *s, double size)
{
	cairo_text_extents_t e;

	cairo_set_font_size(pn->cr, size);
	cairo_text_extents(pn->cr, s, &e);
	return e.x_advance;
}

/* Text at (x, y), its baseline there and align of its width (0, 0.5 or 1)
 * before x; upright or turned to read upwards; cls names its part of the
 * plot in the SVG (title, xtick, xlabel, ytick, ylabel, state). */
static void pen_text(struct pen *pn, double x, double y, const char *s,
		     double align, double size, int upwards, const char *cls)
{
	if (!pn->svg) {
		double w = text_width(pn, s, size);

		cairo_save(pn->cr);
		cairo_move_to(pn->cr, x, y);
		if (upwards)
			cairo_rotate(pn->cr, -M_PI / 2);
		cairo_rel_move_to(pn->cr, -align * w, 0);
		cairo_show_text(pn->cr, s);
		cairo_restore(pn->cr);
		return;
	}
	fprintf(pn->svg,
		"<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" "
		"text-anchor=\"%s\"",
		cls, x, y, size,
		align == 0   ? "start"
		: align == 1 ? "end"
			     : "middle");
	if (upwards)
		fprintf(pn->svg, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
	fputc('>', pn->svg);
	ccsg_xml_str(pn->svg, s); /* names may be any bytes: UTF-8 kept */
	fputs("</text>\n", pn->svg);
}

/* s, or s shortened in the middle (at UTF-8 character boundaries) to fit
 * in maxw pixels, in buf. */
static const char *fit(struct pen *pn, const char *s, double maxw, char *buf,
		       size_t size)
{
	size_t n = strlen(s);

	if (text_width(pn, s, LABEL_SIZE) <= maxw || n + 4 > size)
		return s;
	for (size_t cut = 1; cut < n; cut++) {
		size_t head = (n - cut) / 2, from = head + cut;

		while (head && (s[head] & 0xc0) == 0x80)
			head--;
		while (from < n && (s[from] & 0xc0) == 0x80)
			from++;
		snprintf(buf, size, "%.*s\xe2\x80\xa6%s", (int)head, s,
			 s + from);
		if (text_width(pn, buf, LABEL_SIZE) <= maxw)
			return buf;
	}
	return "\xe2\x80\xa6";
}

/* Ticks from x0 to x1, about six, 1, 2 or 5 times a power of ten apart,
 * into v; *dec: the decimals their labels need. */
static size_t nice_ticks(double x0, double x1, double *v, int *dec)
{
	double raw = (x1 - x0) / 6, mag, step, r;
	size_t n = 0;

	*dec = 0;
	if (!(raw > 0)) {
		v[0] = x0;
		return 1;
	}
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	step = mag * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
	if (step < 1)
		*dec = (int)ceil(-log10(step) - 1e-9);
	for (double k = ceil(x0 / step - 1e-9);
	     k * step <= x1 + step * 1e-9 && n < MAX_TICKS; k++)
		v[n++] = fabs(k) < 0.5 ? 0 : k * step;
	return n;
}

/* Ticks of a logarithmic axis from x0 > 0 to x1: m times 10^k, m = 1 to
 * 9, labelled (major[i]) at the powers of ten, and at 2 and 5 times them
 * when the range spans two decades or less. */
static size_t log_ticks(double x0, double x1, double *v, int *major)
{
	int k0 = (int)floor(log10(x0)), k1 = (int)ceil(log10(x1));
	size_t n = 0, nmajor = 0;

	for (int k = k0; k <= k1; k++)
		for (int m = 1; m <= 9 && n < MAX_TICKS; m++) {
			double x = m * pow(10, k);

			if (x < x0 * (1 - 1e-9) || x > x1 * (1 + 1e-9))
				continue;
			major[n] =
				m == 1 || (k1 - k0 <= 2 && (m == 2 || m == 5));
			nmajor += (size_t)major[n];
			v[n++] = x;
		}
	for (size_t i = 0; nmajor < 2 && i < n; i++)
		major[i] = 1; /* less than a decade: label them all */
	return n;
}

static void x_axis(struct pen *pn, const struct frame *f)
{
	double v[MAX_TICKS];
	int major[MAX_TICKS], dec = 0;
	size_t n;
	char buf[64];

	if (f->logx) {
		n = log_ticks(f->x0, f->x1, v, major);
	} else {
		n = nice_ticks(f->x0, f->x1, v, &dec);
		for (size_t i = 0; i < n; i++)
			major[i] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		double x = px(f, v[i]), base = TOP + f->ph;

		pen_segment(pn, x, base, x, base + (major[i] ? 4 : 2));
		pen_stroke(pn);
		if (!major[i])
			continue;
		if (f->logx)
			snprintf(buf, sizeof(buf), "%g", v[i]);
		else
			snprintf(buf, sizeof(buf), "%.*f", dec, v[i]);
		pen_text(pn, x, base + 16, buf, 0.5, LABEL_SIZE, 0, "xtick");
	}
}

/* Every state gets a tick (while they are 2 pixels apart); every k-th a
 * name, k the least that keeps the names LABEL_SPACING apart. */
static size_t label_stride(const struct frame *f)
{
	double per = f->ph / (f->y1 - f->y0);

	return per >= LABEL_SPACING ? 1 : (size_t)ceil(LABEL_SPACING / per);
}

/* The left margin: room for the widest name written (or number). */
static double left_margin(struct pen *pn, const struct pes_plot *pl,
			  const struct frame *f)
{
	size_t k = label_stride(f);
	double w = text_width(pn, "-0.0000e+00", LABEL_SIZE);

	if (pl->ylabels) {
		w = 0;
		for (size_t i = 0; i < pl->nylabels; i += k) {
			double t = text_width(pn, pl->ylabels[i], LABEL_SIZE);

			w = fmax(w, fmin(t, LABEL_MAX_WIDTH));
		}
	}
	return fmax(LEFT_MIN, ceil(w) + 34);
}

static void y_axis(struct pen *pn, const struct pes_plot *pl,
		   const struct frame *f)
{
	char buf[300];

	if (pl->ylabels) {
		size_t k = label_stride(f);
		int every = f->ph / (f->y1 - f->y0) >= 2;

		for (size_t i = 0; i < pl->nylabels; i++) {
			double y = py(f, (double)i);

			if (!every && i % k)
				continue;
			pen_segment(pn, f->left - (i % k ? 2 : 4), y, f->left,
				    y);
			pen_stroke(pn);
			if (i % k)
				continue;
			pen_text(pn, f->left - 6, y + 4,
				 fit(pn, pl->ylabels[i], LABEL_MAX_WIDTH, buf,
				     sizeof(buf)),
				 1, LABEL_SIZE, 0, "state");
		}
		return;
	}
	double v[MAX_TICKS];
	int dec;
	size_t n = nice_ticks(f->y0, f->y1, v, &dec);

	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%.4g", v[i]);
		pen_segment(pn, f->left - 4, py(f, v[i]), f->left, py(f, v[i]));
		pen_stroke(pn);
		pen_text(pn, f->left - 6, py(f, v[i]) + 4, buf, 1, LABEL_SIZE,
			 0, "ytick");
	}
}

static void axes(struct pen *pn, const struct pes_plot *pl,
		 const struct frame *f)
{
	double l = f->left, r = f->left + f->pw, b = TOP + f->ph;

	pen_color(pn, 0);
	cairo_set_line_width(pn->cr, 1);
	pen_move(pn, l, TOP, 0);
	pen_move(pn, r, TOP, 1);
	pen_move(pn, r, b, 1);
	pen_move(pn, l, b, 1);
	pen_move(pn, l, TOP, 1);
	pen_stroke(pn);
	x_axis(pn, f);
	y_axis(pn, pl, f);
	pen_text(pn, l + f->pw / 2, HEIGHT - 12, pl->xlabel, 0.5, LABEL_SIZE, 0,
		 "xlabel");
	pen_text(pn, 14, TOP + f->ph / 2, pl->ylabel, 0.5, LABEL_SIZE, 1,
		 "ylabel");
	pen_text(pn, WIDTH / 2.0, 22, pl->title, 0.5, TITLE_SIZE, 0, "title");
}

/* The points, per pixel column: the extent of y in each column, joined to
 * the next column at the last y. */
static void curve(struct pen *pn, const struct pes_plot *pl,
		  const struct frame *f)
{
	long col = -1;
	double lo = 0, hi = 0, last = 0;

	pen_color(pn, 0x1a4db3);
	for (size_t i = 0; i < pl->n; i++) {
		double x, y;

		pl->point(pl->ctx, i, &x, &y);
		if (pl->mode == PES_PLOT_BARS && (x > f->x1 || px(f, x) < 0)) {
			if (x > f->x1)
				break; /* points come in x order */
			continue;
		}
		long c = lround(px(f, x));
		if (pl->mode == PES_PLOT_BARS) {
			if (c != col && col >= 0)
				pen_segment(pn, col + 0.5, py(f, 0), col + 0.5,
					    py(f, hi));
			if (c != col)
				hi = y;
			else if (y > hi)
				hi = y;
			col = c;
			continue;
		}
		if (c != col) {
			if (col >= 0) {
				if (hi > lo)
					pen_segment(pn, col + 0.5, py(f, lo),
						    col + 0.5, py(f, hi));
				/* a step holds the last y up to the new x */
				pen_segment(pn, col + 0.5, py(f, last), c + 0.5,
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
	if (col >= 0 && pl->mode == PES_PLOT_BARS) {
		pen_segment(pn, col + 0.5, py(f, 0), col + 0.5, py(f, hi));
	} else if (col >= 0) {
		if (hi > lo)
			pen_segment(pn, col + 0.5, py(f, lo), col + 0.5,
				    py(f, hi));
		if (pl->mode == PES_PLOT_STEP)
			pen_segment(pn, col + 0.5, py(f, last), px(f, f->x1),
				    py(f, last));
	}
	pen_stroke(pn);
}

static void draw(struct pen *pn, const struct pes_plot *pl, struct frame *f)
{
	double l, w, h;

	cairo_select_font_face(pn->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	f->left = left_margin(pn, pl, f);
	f->pw = WIDTH - f->left - RIGHT;
	l = f->left, w = f->pw, h = f->ph;
	if (pn->svg) {
		fprintf(pn->svg,
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			"font-family=\"sans-serif\">\n"
			"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
			WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH, HEIGHT);
	} else {
		cairo_set_source_rgb(pn->cr, 1, 1, 1);
		cairo_paint(pn->cr);
	}
	axes(pn, pl, f);
	if (pn->svg)
		fprintf(pn->svg,
			"<clipPath id=\"plot\"><rect x=\"%.1f\" y=\"%d\" "
			"width=\"%.1f\" height=\"%.1f\"/></clipPath>\n"
			"<g clip-path=\"url(#plot)\">\n",
			l, TOP, w, h);
	cairo_rectangle(pn->cr, l, TOP, w, h);
	cairo_clip(pn->cr);
	curve(pn, pl, f);
	if (pn->svg)
		fputs("</g>\n</svg>\n", pn->svg);
}

int pes_plot_write(const struct pes_plot *pl, const char *path, int png)
{
	struct frame f = { .x0 = pl->xmin,
			   .x1 = pl->xmax,
			   .y0 = pl->ymin,
			   .y1 = pl->ymax,
			   .ph = HEIGHT - TOP - BOTTOM,
			   .logx = pl->logx };
	struct pen pn = { 0 };
	cairo_surface_t *sf;
	cairo_status_t st;
	int err = 0;

	/* the SVG's text is measured on an image of one pixel */
	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, png ? WIDTH : 1,
					png ? HEIGHT : 1);
	pn.cr = cairo_create(sf);
	if (!png && !(pn.svg = fopen(path, "w")))
		err = errno;
	/* a little room above and below the states */
	if (pl->mode != PES_PLOT_BARS) {
		f.y0 -= 0.5;
		f.y1 += 0.5;
	}
	if (!err)
		draw(&pn, pl, &f);
	cairo_destroy(pn.cr);
	if (!err && pn.svg) {
		int bad = ferror(pn.svg);

		errno = 0;
		if (fclose(pn.svg) || bad)
			err = errno ? errno : EIO;
	}
	st = err || !png ? CAIRO_STATUS_SUCCESS
			 : cairo_surface_write_to_png(sf, path);
	cairo_surface_destroy(sf);
	/* cairo and fontconfig keep font caches for the process's life:
	 * free them, so that a plot leaves nothing behind (LeakSanitizer) */
	cairo_debug_reset_static_data();
	FcFini();
	if (err)
		return fail("cannot write '%s': %s", path, strerror(err));
	if (st)
		return fail("cannot write '%s': %s", path,
			    cairo_status_to_string(st));
	return 0;
}
