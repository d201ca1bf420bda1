// SPDX-License-Identifier: MIT
/*
 * The qualification report as one self-contained HTML file, drawn from the
 * JSON report alone (awr qualify --html, awr report FILE.json --html): the
 * verdict and every check, the size sweep, the latency distributions of the
 * performance check, the extent map of the test file, the findings, and the
 * JSON itself embedded for tools. Charts are inline SVG written here; the file
 * loads nothing and runs no script (its Content-Security-Policy forbids both).
 * Every drawn element carries data-* attributes naming what it shows, so a
 * browser test can count them against the JSON.
 *
 * A saved report may come from another awr version or be damaged: a table of
 * what the page reads (each member's type, whether the page needs it) is walked
 * once before drawing, and a list at the page's top names each part that is
 * missing or of the wrong type; the drawing reads every member through a typed
 * getter (a member of another type counts as missing) and draws what the report
 * holds. Every string from the JSON, object keys included, reaches the page
 * escaped.
 */
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"
#include "platform/platform.h"
#include "report_css.h"	/* style[]: cli/report.css */

#define GENERATOR	"<meta name=\"generator\" content=\"awr "
#define CHART_W		640.0
#define CHART_H		260.0
#define ML		64.0	/* margins: left, right, top, bottom */
#define MR		16.0
#define MT		12.0
#define MB		40.0
#define NUMBER		json_type_double	/* to a getter: a finite number, integer or not */
#define STRING		json_type_string
#define OBJECT		json_type_object
#define ARRAY		json_type_array
#define BOOLEAN		json_type_boolean
#define LACKS_MAX	64	/* lacks listed on the page; more are counted */
#define JPATH		1024	/* a JSON path named on the page (a longer one is cut) */

/* What the report lacks (path -> sentence, in order), found before the page is drawn. */
struct page {
	struct json_object *lacks;
	unsigned int more;
};

/* ------------------------------------------------------------------ reading the JSON */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Is @v of type @t? NUMBER takes integers and finite doubles; NULL is of no type. */
static bool is(struct json_object *v, enum json_type t)
{
	if (!v)
		return false;
	if (t == NUMBER)
		return json_object_is_type(v, json_type_int) ||
		       (json_object_is_type(v, json_type_double) &&
			isfinite(json_object_get_double(v)));
	return json_object_is_type(v, t);
}

static struct json_object *typed(struct json_object *o, const char *key, enum json_type t)
{
	struct json_object *v = get(o, key);

	return is(v, t) ? v : NULL;
}

static size_t count(struct json_object *a)
{
	return is(a, ARRAY) ? json_object_array_length(a) : 0;
}

static struct json_object *at(struct json_object *a, size_t i)
{
	return i < count(a) ? json_object_array_get_idx(a, i) : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = typed(o, key, STRING);

	return v ? json_object_get_string(v) : "";
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v = typed(o, key, NUMBER);

	return v ? json_object_get_double(v) : 0;
}

/* A check by name from the report's "checks" array. */
static struct json_object *check(struct json_object *doc, const char *name)
{
	struct json_object *a = typed(doc, "checks", ARRAY);

	for (size_t i = 0; i < count(a); i++)
		if (!strcmp(str(at(a, i), "name"), name))
			return at(a, i);
	return NULL;
}

/*
 * A result or verdict as people read it: "PASS", "FAIL", "SKIP", "INFO". Reports spell them
 * "pass", ... (snake_case, as every JSON key and value of awr); reports of awr before 0.1.0
 * spelled them in capitals: both read alike. Anything else is shown as it is.
 */
static const char *word(const char *s)
{
	static const char *const words[] = { "PASS", "FAIL", "SKIP", "INFO" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcasecmp(s, words[i]))
			return words[i];
	return s;
}

/* Did the check run? A skipped one may leave its figures out. */
static bool ran(struct json_object *c)
{
	return c && strcasecmp(str(c, "result"), "skip");
}

/* ------------------------------------------------------------------ what the report lacks */

static const char *type_name(enum json_type t)
{
	static const char *const names[] = {
		[json_type_null] = "null", [BOOLEAN] = "true or false",
		[json_type_int] = "a number", [NUMBER] = "a number",
		[STRING] = "a string", [ARRAY] = "an array", [OBJECT] = "an object",
	};

	return (unsigned int)t < sizeof(names) / sizeof(names[0]) ? names[t] : "something";
}

/* What @v is (NULL: JSON null), for a sentence */
static const char *type_of(struct json_object *v)
{
	if (json_object_is_type(v, json_type_double) && !isfinite(json_object_get_double(v)))
		return "a number that is not finite";
	return type_name(json_object_get_type(v));
}

/* Name @path (a JSON path: limits, checks[performance].figures) on the page with what is wrong. */
static void lack(struct page *pg, const char *path, const char *what)
{
	if (json_object_object_get_ex(pg->lacks, path, NULL))
		return;
	if (json_object_object_length(pg->lacks) >= LACKS_MAX) {
		pg->more++;
		return;
	}
	json_object_object_add(pg->lacks, path, json_object_new_string(what));
}

/*
 * What the page reads of the report, and how: a member's key, its type (NUMBER: a finite number),
 * whether the page needs it (NEED; RAN: when its check ran; MAY: named only when of another
 * type), a rule for its value or its elements (NAMED: objects, each named by its "name"), and
 * @sub: the members of the object it is, of each element of the array it is, or of each mode of
 * the performance figures.
 */
enum need { NEED, MAY, RAN };
enum rule { ANY, OBJECTS, NAMED, STRINGS, PAIRS, POSITIVE, MODES };

struct shape {
	const char *key;		/* NULL ends a table */
	enum json_type type;
	enum need need;
	enum rule rule;			/* an array's elements; POSITIVE: a number above 0 */
	const struct shape *sub;
};

/* Does element @e of an array keep @rule? PAIRS: [microseconds, share], both numbers. */
static bool keeps(struct json_object *e, enum rule rule)
{
	if (rule == OBJECTS || rule == NAMED)
		return is(e, OBJECT);
	if (rule == STRINGS)
		return is(e, STRING);
	if (rule == PAIRS)
		return count(e) >= 2 && is(at(e, 0), NUMBER) && is(at(e, 1), NUMBER);
	return true;
}

/* What an element that breaks @rule is, for a sentence */
static const char *breaks(struct json_object *e, enum rule rule, char *buf, size_t len)
{
	if (rule == STRINGS)
		return "not a string";
	if (rule == PAIRS)
		return "not a pair of numbers [microseconds, share]";
	snprintf(buf, len, "%s where an object belongs", type_of(e));
	return buf;
}

/* Is @m a mode of the performance figures: an object with a latency distribution? */
static bool is_mode(struct json_object *m)
{
	return is(m, OBJECT) && json_object_object_get_ex(m, "latency_cdf", NULL);
}

static void walk(struct page *pg, struct json_object *o, const char *where,
		 const struct shape *f, bool ran);

/* The value @v at @path of the member @f: its rule, its elements, its members, its modes. */
static void walk_value(struct page *pg, struct json_object *v, const char *path,
		       const struct shape *f, bool ran)
{
	char el[JPATH + 32], what[96];

	if (f->rule == POSITIVE && json_object_get_double(v) <= 0)
		lack(pg, path, "not a positive size");
	if (f->type == OBJECT && f->rule != MODES)
		walk(pg, v, path, f->sub, ran);
	for (size_t i = 0; f->type == ARRAY && i < count(v); i++) {
		snprintf(el, sizeof(el), "%s[%zu]", path, i);
		if (f->rule == NAMED && typed(at(v, i), "name", STRING))
			snprintf(el, sizeof(el), "%s[%s]", path, str(at(v, i), "name"));
		if (!keeps(at(v, i), f->rule))
			lack(pg, el, breaks(at(v, i), f->rule, what, sizeof(what)));
		else if (f->sub)
			walk(pg, at(v, i), el, f->sub, ran);
	}
	if (f->rule != MODES)
		return;
	json_object_object_foreach(v, mode, m) {
		snprintf(el, sizeof(el), "%s.%s", path, mode);
		if (is_mode(m))
			walk(pg, m, el, f->sub, ran);
	}
}

/*
 * Name on the page what the object @o (at path @where) lacks of the members @f, and of their
 * parts: a member of another type, and a missing or null one the page needs (RAN: when the
 * check @ran).
 */
static void walk(struct page *pg, struct json_object *o, const char *where,
		 const struct shape *f, bool ran)
{
	char path[JPATH], what[96];

	for (; f && is(o, OBJECT) && f->key; f++) {
		struct json_object *v = NULL;
		bool present = json_object_object_get_ex(o, f->key, &v);

		snprintf(path, sizeof(path), "%s%s%s", where, *where ? "." : "", f->key);
		snprintf(what, sizeof(what), "%s where %s belongs", type_of(v), type_name(f->type));
		if (is(v, f->type))
			walk_value(pg, v, path, f, ran);
		else if (v || f->need == NEED || (f->need == RAN && ran))
			lack(pg, path, present ? what : "missing");
	}
}

static const struct shape pcts_shape[] = {
	{ "p50", NUMBER }, { "p99", NUMBER }, { "p99_9", NUMBER }, { NULL },
};
static const struct shape mode_shape[] = {
	{ "latency_us", OBJECT, .sub = pcts_shape }, { "pages_per_s", NUMBER },
	{ "latency_cdf", ARRAY, .rule = PAIRS }, { NULL },
};
static const struct shape range_shape[] = {
	{ "offset", NUMBER }, { "length", NUMBER }, { "path", STRING }, { "extents", NUMBER },
	{ NULL },
};
static const struct shape extent_map_shape[] = {
	{ "file_size", NUMBER }, { "unit", NUMBER }, { "nr_extents", NUMBER },
	{ "nr_ranges", NUMBER }, { "hardware_bytes", NUMBER }, { "software_bytes", NUMBER },
	{ "ranges", ARRAY, .rule = OBJECTS, .sub = range_shape }, { NULL },
};
static const struct shape check_shape[] = {
	{ "name", STRING }, { "result", STRING }, { "reason", STRING }, { "seconds", NUMBER },
	{ "figures", OBJECT }, { "what_to_do", STRING, MAY }, { NULL },
};

/* The members every report has at its top level, as awr qualify writes them. */
static const struct shape top_shape[] = {
	{ "verdict", STRING }, { "path", STRING }, { "target", STRING }, { "target_type", STRING },
	{ "kernel", STRING }, { "awr_version", STRING }, { "date", STRING }, { "seconds", NUMBER },
	{ "passed", NUMBER }, { "failed", NUMBER }, { "skipped", NUMBER }, { "info", NUMBER },
	{ "limits", OBJECT }, { "checks", ARRAY, .rule = NAMED, .sub = check_shape },
	{ "quick", BOOLEAN, MAY }, { "scratch_file", BOOLEAN, MAY },
	{ "notes", ARRAY, MAY, STRINGS }, { "extent_map", OBJECT, MAY, .sub = extent_map_shape },
	{ "scope", STRING, MAY }, { "scope_text", STRING, MAY }, { "require", OBJECT, MAY },
	{ NULL },
};

static const struct shape write_shape[] = {
	{ "size", NUMBER, .rule = POSITIVE }, { "latency_us", NUMBER },
	{ "read_back", STRING, MAY }, { "write", STRING, MAY }, { NULL },
};
static const struct shape finding_shape[] = {
	{ "id", STRING }, { "severity", STRING }, { "message", STRING }, { NULL },
};

/* What the page reads of each check's figures it draws */
static const struct shape discovery_shape[] = {
	{ "findings", ARRAY, .rule = OBJECTS, .sub = finding_shape }, { NULL },
};
static const struct shape size_sweep_shape[] = {
	{ "writes", ARRAY, RAN, OBJECTS, write_shape }, { NULL },
};
static const struct shape refusals_shape[] = { { "cases", ARRAY, RAN }, { NULL } };
static const struct shape torn_shape[] = {
	{ "verify", OBJECT, RAN, .sub = (const struct shape[]){ { "counts", OBJECT }, { NULL } } },
	{ NULL },
};
static const struct shape crash_shape[] = { { "cycles", ARRAY, MAY }, { NULL } };
static const struct shape short_pin_shape[] = { { "outcome", STRING, MAY }, { NULL } };

/* ------------------------------------------------------------------ writing */

/* @s with the characters markup gives a meaning to as entities */
static void esc(FILE *f, const char *s)
{
	static const char *const ent[256] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
	};

	for (; s && *s; s++)
		fputs(ent[(unsigned char)*s] ? ent[(unsigned char)*s] : (char[2]){ *s, 0 }, f);
}

/* fprintf() of markup, each string of a %s escaped; it knows %s, %d, %zu, %.Nf and %% only. */
static void __attribute__((format(printf, 2, 3))) html(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%' || fmt[1] == '%') {
			fputc(*fmt, f);
			fmt += *fmt == '%';
		} else if (*++fmt == 's') {
			esc(f, va_arg(ap, const char *));
		} else if (*fmt == 'd') {
			fprintf(f, "%d", va_arg(ap, int));
		} else if (*fmt == 'z') {
			fprintf(f, "%zu", va_arg(ap, size_t));
			fmt++;
		} else {	/* .Nf */
			fprintf(f, "%.*f", fmt[1] - '0', va_arg(ap, double));
			fmt += 2;
		}
	}
	va_end(ap);
}

/* Bytes for people ("11.9 MiB"); the exact count stays in the JSON and the data-* attributes. */
static const char *size_label(double bytes, char *buf, size_t len)
{
	return awr__human_bytes(bytes >= 0x1p64 ? UINT64_MAX : bytes > 0 ? (uint64_t)bytes : 0,
				buf, len);
}

static void section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "</section>\n<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

/* ------------------------------------------------------------------ charts */

struct axis {
	double lo, hi;		/* the domain (log10 of it when log) */
	bool log;
};

static double pos(const struct axis *a, double v, double from, double to)
{
	double x = a->log ? log10(v > 0 ? v : 1e-9) : v;
	double t = a->hi > a->lo ? (x - a->lo) / (a->hi - a->lo) : 0.5;

	return from + t * (to - from);
}

static double px(const struct axis *a, double v)
{
	return pos(a, v, ML, CHART_W - MR);
}

static double py(const struct axis *a, double v)
{
	return pos(a, v, CHART_H - MB, MT);
}

static void svg_open(FILE *f, const char *cls, const char *label)
{
	html(f, "<svg class=\"chart %s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
	     "role=\"img\" aria-label=\"%s", cls, CHART_W, CHART_H, CHART_W, CHART_H, label);
	fprintf(f, "\">\n<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
		"height=\"%.0f\"/>\n", ML, MT, CHART_W - ML - MR, CHART_H - MT - MB);
}

static void x_tick(FILE *f, const struct axis *x, double v, const char *label)
{
	double p = px(x, v);

	fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>"
		"<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
		p, MT, p, CHART_H - MB, p, CHART_H - MB + 14, label);
}

static void y_tick(FILE *f, const struct axis *y, double v, const char *label)
{
	double p = py(y, v);

	fprintf(f, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>"
		"<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		ML, p, CHART_W - MR, p, ML - 4, p + 4, label);
}

static void axis_titles(FILE *f, const char *xt, const char *yt)
{
	fprintf(f, "<text class=\"axis-title\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
		"%s</text>\n", (ML + CHART_W - MR) / 2, CHART_H - 6, xt);
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(14 %.0f) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>\n", (MT + CHART_H - MB) / 2, yt);
}

/* A round step for a linear axis from 0 to @max: about five ticks. */
static double step_for(double max)
{
	double p = pow(10, floor(log10(max > 0 ? max : 1))), r = max / p;

	return (r > 5 ? 2 : r > 2 ? 1 : r > 1 ? 0.5 : 0.2) * p;
}

static void us_label(double us, char *buf, size_t len)
{
	if (us >= 1e6)
		snprintf(buf, len, "%g s", us / 1e6);
	else if (us >= 1e3)
		snprintf(buf, len, "%g ms", us / 1e3);
	else
		snprintf(buf, len, "%g us", us);
}

/* Ticks from 0 to @a's top, about five, at most 12 (a damaged report may hold any number). */
static void linear_ticks(FILE *f, const struct axis *a)
{
	double step = step_for(a->hi);
	char l[32];

	for (int k = 0; k <= 12 && k * step <= a->hi; k++) {
		us_label(k * step, l, sizeof(l));
		y_tick(f, a, k * step, l);
	}
}

/* A write of the size sweep that can be drawn: a positive size and a latency. */
static bool sweep_point(struct json_object *e, double *size, double *us)
{
	*size = num(e, "size");
	*us = num(e, "latency_us");
	return typed(e, "size", NUMBER) && typed(e, "latency_us", NUMBER) && *size > 0;
}

static void sweep_dot(FILE *f, const struct axis *x, const struct axis *y, struct json_object *e)
{
	const char *rb = get(e, "read_back") ? str(e, "read_back") : str(e, "write");
	double s = num(e, "size"), l = num(e, "latency_us");
	char a[32], b[32];

	html(f, "<circle class=\"sweep-pt %s\" data-size=\"%.0f\" data-result=\"%s\" "
	     "data-latency-us=\"%.1f\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>%s: %s, %s</title>"
	     "</circle>\n", strcmp(rb, "intact") ? "bad" : "ok", s, rb, l, px(x, s), py(y, l),
	     size_label(s, a, sizeof(a)), awr__human_usec(l, b, sizeof(b)), rb);
}

/* The size sweep: each size written against its latency, coloured by what was read back. */
static void sweep_chart(FILE *f, struct json_object *fig)
{
	struct json_object *w = typed(fig, "writes", ARRAY);
	struct axis x = { 0, 1, true }, y = { 0, 1, false };
	double smin = 0, smax = 0, lmax = 0, s, l;
	size_t n = count(w), drawn = 0;
	char a[32];

	for (size_t i = 0; i < n; i++) {
		if (!sweep_point(at(w, i), &s, &l))
			continue;
		smin = !drawn || s < smin ? s : smin;
		smax = s > smax ? s : smax;
		lmax = l > lmax ? l : lmax;
		drawn++;
	}
	if (!drawn) {
		fputs("<p class=\"empty\">The size sweep wrote nothing (see its check "
		      "above).</p>\n", f);
		return;
	}
	x.lo = log10(smin) - 0.15;
	x.hi = log10(smax) + 0.15;
	y.hi = lmax > 0 ? fmin(lmax * 1.15, DBL_MAX) : 1;
	svg_open(f, "sweep-chart", "size sweep: write size against latency");
	linear_ticks(f, &y);
	for (size_t i = 0; i < n; i++)
		if (sweep_point(at(w, i), &s, &l))
			x_tick(f, &x, s, size_label(s, a, sizeof(a)));
	axis_titles(f, "atomic write size (durable, one write each)", "latency");
	for (size_t i = 0; i < n; i++)
		if (sweep_point(at(w, i), &s, &l))
			sweep_dot(f, &x, &y, at(w, i));
	fputs("</svg>\n", f);
	if (drawn < n)
		fprintf(f, "<p class=\"empty\">%zu of the %zu writes are not drawn (see what the "
			"report lacks, above).</p>\n", n - drawn, n);
}

static const char *const pcts[] = { "p50", "p99", "p99_9" };

/*
 * A performance mode's latency distribution (an array of [microseconds, share]), or NULL for a
 * member of the figures that is not a mode (method, unit, ...).
 */
static struct json_object *mode_cdf(struct json_object *m)
{
	return is_mode(m) ? typed(m, "latency_cdf", ARRAY) : NULL;
}

/* A point of a latency distribution: [microseconds, share], both numbers. */
static bool cdf_point(struct json_object *p, double *us, double *share)
{
	if (!keeps(p, PAIRS))
		return false;
	*us = json_object_get_double(at(p, 0));
	*share = json_object_get_double(at(p, 1));
	return true;
}

/* The latency axis over every mode's points; 0 when no mode has a point to draw. */
static unsigned int cdf_domain(struct json_object *fig, struct axis *x)
{
	double lo = 0, hi = 0, us, sh;
	unsigned int modes = 0, points = 0;

	json_object_object_foreach(fig, mode, m) {
		struct json_object *c = mode_cdf(m);
		unsigned int before = points;

		(void)mode;
		for (size_t i = 0; i < count(c); i++) {
			if (!cdf_point(at(c, i), &us, &sh))
				continue;
			lo = !points || us < lo ? us : lo;
			hi = us > hi ? us : hi;
			points++;
		}
		modes += points > before;
	}
	x->lo = floor(log10(lo > 0 ? lo : 1));
	x->hi = ceil(log10(hi > 0 ? hi : 10));
	if (x->hi <= x->lo)
		x->hi = x->lo + 1;
	return modes;
}

/* Each mode's line, its points and its p50/p99/p99.9 marks. */
static void cdf_modes(FILE *f, struct json_object *fig, const struct axis *x,
		      const struct axis *y)
{
	static const double shares[] = { 0.5, 0.99, 0.999 };
	char t[32];

	json_object_object_foreach(fig, mode, m) {
		struct json_object *c = mode_cdf(m);
		struct json_object *lat = typed(m, "latency_us", OBJECT);
		size_t n = count(c);

		if (!n)
			continue;
		html(f, "<g class=\"cdf\" data-mode=\"%s\" data-points=\"%zu\">\n<polyline class="
		     "\"cdf-line\" points=\"", mode, n);
		for (size_t i = 0, drawn = 0; i < n; i++) {
			double us, sh;

			if (cdf_point(at(c, i), &us, &sh))
				fprintf(f, "%s%.1f,%.1f", drawn++ ? " " : "", px(x, us),
					py(y, sh));
		}
		fputs("\"/>\n", f);
		for (size_t i = 0; i < n; i++) {
			struct json_object *p = json_object_array_get_idx(c, i);
			double us, sh;

			if (!cdf_point(p, &us, &sh))
				continue;
			html(f, "<circle class=\"cdf-pt\" data-mode=\"%s\" cx=\"%.1f\" cy=\"%.1f\" "
			     "r=\"2\"><title>%s: %s, %.2f%%</title></circle>\n", mode, px(x, us),
			     py(y, sh), mode, awr__human_usec(us, t, sizeof(t)), sh * 100);
		}
		for (size_t k = 0; k < 3; k++) {
			double us = num(lat, pcts[k]);

			if (us <= 0)
				continue;
			html(f, "<line class=\"pct-mark\" data-mode=\"%s\" data-pct=\"%s\" "
			     "data-us=\"%.1f\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			     "<title>%s %s: %s</title></line>\n", mode, pcts[k], us, px(x, us),
			     py(y, shares[k]) - 7, px(x, us), py(y, shares[k]) + 7, mode, pcts[k],
			     awr__human_usec(us, t, sizeof(t)));
		}
		fputs("</g>\n", f);
	}
}

/* The legend: each mode drawn with its pages/s and percentiles. */
static void cdf_legend(FILE *f, struct json_object *fig)
{
	char t[32];

	fputs("<table class=\"legend\"><tr><th>mode</th><th>pages/s</th><th>p50</th><th>p99</th>"
	      "<th>p99.9</th></tr>\n", f);
	json_object_object_foreach(fig, mode, m) {
		struct json_object *lat = typed(m, "latency_us", OBJECT);

		if (!count(mode_cdf(m)))
			continue;
		html(f, "<tr class=\"perf-mode\" data-mode=\"%s\"><td><span class=\"swatch\">"
		     "</span>%s</td><td>%.0f</td>", mode, mode, num(m, "pages_per_s"));
		for (size_t k = 0; k < 3; k++)
			fprintf(f, "<td>%s</td>", awr__human_usec(num(lat, pcts[k]), t, sizeof(t)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The performance check's latency distribution per mode, p50/p99/p99.9 marked. */
static void cdf_chart(FILE *f, struct json_object *fig)
{
	struct axis x = { 0, 1, true }, y = { 0, 1, false };
	char a[32];
	int ticks = 0;

	if (!cdf_domain(fig, &x)) {
		fputs("<p class=\"empty\">The performance check measured no latencies (see its "
		      "check above).</p>\n", f);
		return;
	}
	svg_open(f, "cdf-chart", "latency distribution of the performance check's writes");
	for (double d = x.lo; d <= x.hi && ticks++ < 40; d += 1) {
		us_label(pow(10, d), a, sizeof(a));
		x_tick(f, &x, pow(10, d), a);
	}
	for (double v = 0; v <= 1.0001; v += 0.25) {
		snprintf(a, sizeof(a), "%.0f%%", v * 100);
		y_tick(f, &y, v, a);
	}
	axis_titles(f, "latency of a page write (log scale)", "share of writes at or below");
	cdf_modes(f, fig, &x, &y);
	fputs("</svg>\n", f);
	cdf_legend(f, fig);
}

/* A range of the extent map that can be drawn: an offset and a length. */
static bool extent_range(struct json_object *r)
{
	return typed(r, "offset", NUMBER) && typed(r, "length", NUMBER);
}

static void extent_bar(FILE *f, struct json_object *r, double size)
{
	double l = num(r, "offset"), len = num(r, "length"), w = CHART_W - ML - MR;
	double x0 = ML + (size > 0 ? l / size * w : 0), wd = size > 0 ? len / size * w : 0;
	const char *path = str(r, "path");
	char a[32], b[32];

	html(f, "<rect class=\"extent-range\" data-path=\"%s\" data-offset=\"%.0f\" data-length="
	     "\"%.0f\" x=\"%.2f\" y=\"10\" width=\"%.2f\" height=\"30\"><title>%s at %s: %s "
	     "path, %.0f extent%s</title></rect>\n", path, l, len, x0, wd > 0.5 ? wd : 0.5,
	     size_label(len, a, sizeof(a)), size_label(l, b, sizeof(b)), path,
	     num(r, "extents"), num(r, "extents") == 1 ? "" : "s");
}

/* The extent map of the test file: each range where it lies in the file, coloured by its path. */
static void extent_chart(FILE *f, struct json_object *doc)
{
	struct json_object *map = typed(doc, "extent_map", OBJECT);
	struct json_object *e = typed(map, "ranges", ARRAY);
	double size = num(map, "file_size");
	char a[32], b[32], c[32], d[32];
	size_t n = count(e);

	if (!map) {
		fputs("<p class=\"empty\">No extent map: the target is a block device, or its "
		      "filesystem has no FIEMAP.</p>\n", f);
		return;
	}
	fprintf(f, "<p>%.0f extent%s in %.0f range%s over %s, judged at a unit of %s: %s would "
		"take the hardware path, %s the software path%s.</p>\n", num(map, "nr_extents"),
		num(map, "nr_extents") == 1 ? "" : "s", num(map, "nr_ranges"),
		num(map, "nr_ranges") == 1 ? "" : "s", size_label(size, a, sizeof(a)),
		size_label(num(map, "unit"), b, sizeof(b)),
		size_label(num(map, "hardware_bytes"), c, sizeof(c)),
		size_label(num(map, "software_bytes"), d, sizeof(d)),
		num(map, "nr_ranges") > (double)n ? " (the first ranges drawn)" : "");
	fprintf(f, "<svg class=\"chart extent-chart\" viewBox=\"0 0 %.0f 70\" width=\"%.0f\" "
		"height=\"70\" role=\"img\" aria-label=\"extent map\">\n<rect class=\"frame\" "
		"x=\"%.0f\" y=\"10\" width=\"%.0f\" height=\"30\"/>\n", CHART_W, CHART_W, ML,
		CHART_W - ML - MR);
	for (size_t i = 0; i < n; i++)
		if (extent_range(at(e, i)))
			extent_bar(f, at(e, i), size);
	fprintf(f, "<text class=\"tick\" x=\"%.0f\" y=\"56\">0</text><text class=\"tick\" "
		"x=\"%.0f\" y=\"56\" text-anchor=\"end\">%s</text>\n</svg>\n<p class=\"key\">"
		"<span class=\"swatch\" data-path=\"hardware\"></span>hardware path "
		"<span class=\"swatch\" data-path=\"software\"></span>software path "
		"<span class=\"swatch\" data-path=\"unknown\"></span>unknown (a hole: not yet "
		"written)</p>\n", ML, CHART_W - MR, size_label(size, a, sizeof(a)));
}

/* ------------------------------------------------------------------ tables */

/* Does @key name a count of bytes (unit_max, offset, file_size, hardware_bytes, ...)? */
static bool size_key(const char *key)
{
	static const char *const keys[] = {
		"unit_min", "unit_max", "unit_max_opt", "boundary", "dio_mem_align",
		"dio_offset_align", "logical_block_size", "offset", "length", "unit", "span",
		"size", "image_size", "file_size",
	};
	size_t n = strlen(key);

	if (n > 6 && !strcmp(key + n - 6, "_bytes"))
		return true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static void scalar(FILE *f, struct json_object *v)
{
	if (!v)
		fputs("&mdash;", f);
	else if (json_object_is_type(v, STRING))
		esc(f, json_object_get_string(v));
	else
		esc(f, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* A member's value in a table: bytes for people (the exact count in the title), else as it is. */
static void value(FILE *f, const char *key, struct json_object *v)
{
	double n = is(v, NUMBER) ? json_object_get_double(v) : -1;
	char b[32];

	if (!size_key(key) || n < 0) {
		scalar(f, v);
		return;
	}
	fprintf(f, "<span title=\"%.0f bytes\">%s</span>", n, size_label(n, b, sizeof(b)));
}

/* An object's members as one table: their names as the header row, their values below. */
static void kv_table(FILE *f, const char *cls, struct json_object *o)
{
	fprintf(f, "<table class=\"kv %s\">\n<tr>", cls);
	json_object_object_foreach(o, k, v) {
		html(f, "<th>%s</th>", k);
		(void)v;
	}
	fputs("</tr>\n<tr>", f);
	json_object_object_foreach(o, k2, v2) {
		html(f, "<td data-key=\"%s\">", k2);
		value(f, k2, v2);
		fputs("</td>", f);
	}
	fputs("</tr>\n</table>\n", f);
}

/* An array of objects as a table, the columns from the first object's scalar members. */
static void rows_table(FILE *f, const char *cls, struct json_object *a)
{
	struct json_object *first = at(a, 0);

	if (!is(first, OBJECT))
		return;
	fprintf(f, "<table class=\"rows %s\">\n", cls);
	for (size_t i = 0; i <= count(a); i++) {	/* the header row, then one per element */
		fputs("<tr>", f);
		json_object_object_foreach(first, k, v) {
			if (json_object_is_type(v, OBJECT) ||
			    json_object_is_type(v, ARRAY))
				continue;
			if (!i) {
				html(f, "<th>%s</th>", k);
				continue;
			}
			fputs("<td>", f);
			value(f, k, get(at(a, i - 1), k));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void limits_table(FILE *f, struct json_object *doc)
{
	struct json_object *lim = typed(doc, "limits", OBJECT);

	if (lim)
		kv_table(f, "limits", lim);
	else
		fputs("<p class=\"empty\">The report holds no limits (see what it lacks, above)."
		      "</p>\n", f);
}

static void checks_table(FILE *f, struct json_object *doc)
{
	struct json_object *a = typed(doc, "checks", ARRAY);
	size_t n = count(a);
	char t[32];

	fputs("<table class=\"checks\">\n<tr><th>result</th><th>check</th><th>what it found</th>"
	      "<th>what to do</th><th>time</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		const char *res = word(str(c, "result"));

		html(f, "<tr class=\"check\" data-check=\"%s\" data-result=\"%s\"><td class=\"res "
		     "%s\">%s</td><td class=\"name\">%s</td><td class=\"reason\">%s</td><td class="
		     "\"todo\">%s</td><td class=\"num\">%s</td></tr>\n", str(c, "name"), res, res,
		     res, str(c, "name"), str(c, "reason"), str(c, "what_to_do"),
		     awr__human_usec(num(c, "seconds") * 1e6, t, sizeof(t)));
	}
	fputs("</table>\n", f);
}

static void notes(FILE *f, struct json_object *doc)
{
	struct json_object *a = typed(doc, "notes", ARRAY);

	for (size_t i = 0; i < count(a); i++)
		if (is(at(a, i), STRING))
			html(f, "<p class=\"note\">note: %s</p>\n",
			     json_object_get_string(at(a, i)));
}

static void findings_table(FILE *f, struct json_object *fig)
{
	struct json_object *a = typed(fig, "findings", ARRAY);

	if (!count(a)) {
		fputs("<p class=\"empty\">Discovery made no findings.</p>\n", f);
		return;
	}
	fputs("<table class=\"findings\">\n<tr><th>severity</th><th>finding</th>"
	      "<th>what it means</th></tr>\n", f);
	for (size_t i = 0; i < count(a); i++) {
		struct json_object *x = at(a, i);
		const char *sev = str(x, "severity");

		if (!is(x, OBJECT))
			continue;
		html(f, "<tr class=\"finding\" data-finding=\"%s\" data-severity=\"%s\"><td class="
		     "\"sev %s\">%s</td><td>%s</td><td>%s</td></tr>\n", str(x, "id"), sev, sev, sev,
		     str(x, "id"), str(x, "message"));
	}
	fputs("</table>\n", f);
}

static void refusals_table(FILE *f, struct json_object *fig)
{
	rows_table(f, "refusal-cases", typed(fig, "cases", ARRAY));
}

static void torn_counts(FILE *f, struct json_object *fig)
{
	struct json_object *x = typed(typed(fig, "verify", OBJECT), "counts",
				      OBJECT);

	if (x)
		kv_table(f, "torn-counts", x);
	else
		fputs("<p class=\"empty\">The concurrency check did not verify (see its check "
		      "above).</p>\n", f);
}

static void crash_cycles(FILE *f, struct json_object *fig)
{
	struct json_object *x = typed(fig, "cycles", ARRAY);

	if (count(x)) {
		section(f, "crash", "Crash cycles");
		rows_table(f, "crash-cycles", x);
	}
}

/* A block device's short_pin check, when it ran: what a partly pinned buffer's atomic write did. */
static void short_pin(FILE *f, struct json_object *fig)
{
	if (!typed(fig, "outcome", STRING))
		return;
	section(f, "short-pin", "An atomic write from a partly pinned buffer");
	kv_table(f, "short-pin", fig);
}

/* The JSON for tools: '<', '>' and '&' as \u escapes, so nothing in it can end the element. */
static void embed_json(FILE *f, struct json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	fputs("<p>The report this page was drawn from, as <code>awr qualify -o json</code> wrote "
	      "it, is embedded in the element <code>script#awr-report</code> (type "
	      "application/json) for tools.</p>\n<script type=\"application/json\" "
	      "id=\"awr-report\">", f);
	for (; *s; s++) {
		if (*s == '<' || *s == '>' || *s == '&')
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputs("</script>\n", f);
}

/* ------------------------------------------------------------------ the page */

#define FIGURES(...)	{ .type = OBJECT, __VA_ARGS__ }

/*
 * The sections after the summary and what the report lacks, in order: a drawer of a section
 * without a title draws into the one before, or opens its own when it has something to show.
 * A drawer with a check draws that check's figures (@shape: what it reads of them); each
 * section's check with a title is in every report.
 */
static const struct {
	const char *id, *title;
	void (*draw)(FILE *f, struct json_object *o);	/* @o: the figures, or the report */
	const char *check;
	struct shape shape;
} sections[] = {
	{ "checks", "Checks", checks_table }, { NULL, NULL, notes },
	{ "limits", "Atomic write limits (effective)", limits_table },
	{ "findings", "Findings", findings_table, "discovery", FIGURES(.sub = discovery_shape) },
	{ "sweep", "Size sweep", sweep_chart, "size_sweep", FIGURES(.sub = size_sweep_shape) },
	{ "latency", "Latency of atomic, plain and doublewrite page writes", cdf_chart,
	  "performance", FIGURES(.rule = MODES, .sub = mode_shape) },
	{ "refusals", "Writes the kernel must refuse", refusals_table, "kernel_refusals",
	  FIGURES(.sub = refusals_shape) },
	{ "torn", "Concurrent writers", torn_counts, "concurrent_torn",
	  FIGURES(.sub = torn_shape) },
	{ NULL, NULL, crash_cycles, "crash", FIGURES(.sub = crash_shape) },
	{ NULL, NULL, short_pin, "short_pin", FIGURES(.sub = short_pin_shape) },
	{ "extents", "Extent map of the test file", extent_chart },
	{ "json", "The JSON report", embed_json },
};

/* The checks the page draws a section from, and what it reads of their figures. */
static void lacks_checks(struct page *pg, struct json_object *doc)
{
	struct json_object *a = typed(doc, "checks", ARRAY), *c;
	char path[JPATH];

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (!sections[i].check)
			continue;
		c = check(doc, sections[i].check);
		snprintf(path, sizeof(path), "checks[%s]", sections[i].check);
		if (!c && a && sections[i].title)
			lack(pg, path, "missing");
		strcat(path, ".figures");
		if (typed(c, "figures", OBJECT))
			walk_value(pg, get(c, "figures"), path, &sections[i].shape, ran(c));
	}
}

/* Section @i: its figures when it has a check, else a sentence saying why there are none. */
static void draw(FILE *f, struct json_object *doc, size_t i)
{
	const char *name = sections[i].check;
	struct json_object *c = name ? check(doc, name) : NULL;

	if (sections[i].title)
		section(f, sections[i].id, sections[i].title);
	if (!name || typed(c, "figures", OBJECT))
		sections[i].draw(f, name ? get(c, "figures") : doc);
	else if (sections[i].title && !c)
		fprintf(f, "<p class=\"empty\">The report has no %s check (see what it lacks, "
			"above).</p>\n", name);
	else if (sections[i].title)
		fprintf(f, "<p class=\"empty\">The %s check has no figures (see what the report "
			"lacks, above).</p>\n", name);
}

static void head(FILE *f, struct json_object *doc)
{
	const char *verdict = word(str(doc, "verdict"));

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:\">\n%s", GENERATOR);
	html(f, "%s\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	     "\n<title>awr qualify %s: %s", str(doc, "awr_version"),
	     *verdict ? verdict : "(no verdict)", str(doc, "path"));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

/* The run's line: date, length, and each count as the JSON has it. */
static void run_line(FILE *f, struct json_object *doc)
{
	static const struct { const char *key, *label; } counts[] = {
		{ "passed", "passed" }, { "failed", "failed" }, { "skipped", "skipped" },
		{ "info", "information only" },
	};
	char t[32];

	html(f, "<tr><th>run</th><td id=\"run\">%s", str(doc, "date"));
	fprintf(f, "%s, %s", json_object_get_boolean(typed(doc, "quick", BOOLEAN)) ?
		" (quick)" : "", awr__human_usec(num(doc, "seconds") * 1e6, t, sizeof(t)));
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct json_object *v = typed(doc, counts[i].key, NUMBER);

		fprintf(f, "%s<span class=\"count\" data-count=\"%s\">", i ? ", " : ": ",
			counts[i].key);
		if (v)
			fprintf(f, "%.0f", json_object_get_double(v));
		else
			fputs("?", f);
		fprintf(f, "</span> %s", counts[i].label);
	}
	fputs("</td></tr>\n", f);
}

/*
 * The disk's write cache (views.sysfs.write_cache, fua), when the report has it: untorn is not
 * durable, and the reader of a PASS should see what a power cut still takes.
 */
static void write_cache_row(FILE *f, struct json_object *sysfs)
{
	const char *wc = str(sysfs, "write_cache");
	struct json_object *fua = typed(sysfs, "fua", BOOLEAN);

	if (!get(sysfs, "write_cache"))
		return;
	html(f, "<tr><th>write cache</th><td id=\"write_cache\">%s", *wc ? wc : "unknown");
	if (fua)
		fprintf(f, ", FUA %d", json_object_get_boolean(fua) ? 1 : 0);
	if (!strcmp(wc, "write back"))
		fputs(": volatile. Untorn is not durable: an acknowledged write is lost on a "
		      "power cut until fsync, fdatasync or O_DSYNC flushes it", f);
	fputs("</td></tr>\n", f);
}

/*
 * The verdict's scope under the banner (scope, scope_text): a PASS by the filesystem's software
 * path alone reads so. A report of awr before 0.1.0 has none.
 */
static void scope_line(FILE *f, struct json_object *doc)
{
	struct json_object *req = typed(doc, "require", OBJECT);

	if (typed(doc, "scope_text", STRING)) {
		html(f, "<p id=\"scope\" data-scope=\"%s\">%s</p>\n", str(doc, "scope"),
		     str(doc, "scope_text"));
	}
	if (!req || json_object_get_boolean(typed(req, "met", BOOLEAN)))
		return;
	html(f, "<p id=\"requirement\">%s</p>\n<p id=\"requirement-todo\">What to do: %s</p>\n",
	     str(req, "reason"), str(req, "what_to_do"));
}

static void summary(FILE *f, struct json_object *doc)
{
	const char *verdict = word(str(doc, "verdict"));
	struct json_object *sysfs;

	html(f, "<section id=\"summary\">\n<h1>awr qualify <span class=\"verdict %s %s\" id="
	     "\"verdict\">%s</span></h1>\n", strcmp(verdict, "PASS") ? "FAIL" : "PASS",
	     str(doc, "scope"), *verdict ? verdict : "(no verdict)");
	scope_line(f, doc);
	html(f, "<table class=\"meta\">\n<tr><th>path</th><td id=\"path\">%s</td></tr>\n<tr><th>"
	     "target</th><td>%s (%s%s)</td></tr>\n", str(doc, "path"), str(doc, "target"),
	     str(doc, "target_type"), json_object_get_boolean(typed(doc, "scratch_file",
	     BOOLEAN)) ? ", a scratch file" : "");
	sysfs = typed(check(doc, "discovery"), "figures", OBJECT);
	sysfs = get(get(sysfs, "views"), "sysfs");
	if (is(sysfs, OBJECT)) {
		html(f, "<tr><th>device</th><td>%s</td></tr>\n", str(sysfs, "disk"));
		write_cache_row(f, sysfs);
	}
	html(f, "<tr><th>kernel</th><td id=\"kernel\">%s</td></tr>\n<tr><th>awr</th><td>%s</td>"
	     "</tr>\n", str(doc, "kernel"), str(doc, "awr_version"));
	run_line(f, doc);
	fputs("</table>\n", f);
}

/* The list of what the report lacks, when it lacks anything. */
static void lacks_section(FILE *f, struct page *pg)
{
	if (!json_object_object_length(pg->lacks))
		return;
	section(f, "lacks", "What this report lacks");
	fputs("<p>This page draws what the report holds. These parts of it are missing, or are "
	      "not what awr qualify writes there (a report of another awr version, or a damaged "
	      "one):</p>\n<ul>\n", f);
	json_object_object_foreach(pg->lacks, path, what) {
		html(f, "<li class=\"lack\" data-key=\"%s\"><code>%s</code>: %s</li>\n", path, path,
		     json_object_get_string(what));
	}
	if (pg->more)
		fprintf(f, "<li>and %u more</li>\n", pg->more);
	fputs("</ul>\n", f);
}

static bool has(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/*
 * Why @doc is not an awr qualify report at all, or NULL when it is one: a JSON object with
 * "checks", or with "verdict" and "passed". Anything else it lacks, the page names.
 */
const char *report_html_not_report(struct json_object *doc)
{
	if (!is(doc, OBJECT))
		return "its top level is not a JSON object";
	if (!has(doc, "checks") && !(has(doc, "verdict") && has(doc, "passed")))
		return "it has no \"checks\", nor \"verdict\" and \"passed\"";
	return NULL;
}

/* The page of the report @doc (report_html_not_report() said it is one) to @f. */
static int report_html(struct json_object *doc, FILE *f)
{
	struct page pg = { .lacks = json_object_new_object() };

	if (!pg.lacks)
		return -ENOMEM;
	walk(&pg, doc, "", top_shape, true);
	lacks_checks(&pg, doc);
	head(f, doc);
	summary(f, doc);
	lacks_section(f, &pg);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		draw(f, doc, i);
	fputs("</section>\n</body>\n</html>\n", f);
	json_object_put(pg.lacks);
	return ferror(f) ? -EIO : 0;
}

/* May @path be written? A new or empty file, a report awr wrote before, anything with --force. */
int report_html_dest_ok(const char *path, bool force)
{
	char head[1024] = "";
	struct stat st;
	ssize_t n;
	int fd;

	if (force || lstat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode)) {
		out_error("%s is not a regular file: give a new file name for the HTML report",
			  path);
		return -EINVAL;
	}
	if (!st.st_size)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	n = fd < 0 ? -1 : read(fd, head, sizeof(head) - 1);
	if (fd >= 0)
		close(fd);
	if (n > 0 && strstr(head, GENERATOR))
		return 0;
	out_error("%s holds data that is not an awr report: give a new file name, or --force to "
		  "replace it", path);
	return -EEXIST;
}

int report_html_file(struct json_object *doc, const char *path)
{
	const char *why = report_html_not_report(doc);
	int fd, ret;
	FILE *f;

	if (why) {
		out_error("the JSON is not an awr qualify report (%s): give a file that awr "
			  "qualify --report or -o json wrote", why);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		out_error("cannot write the HTML report %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	ret = report_html(doc, f);
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		out_error("cannot write the HTML report %s: %s", path, strerror(-ret));
	return ret;
}
