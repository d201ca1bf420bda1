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
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"

#define GENERATOR	"<meta name=\"generator\" content=\"awr "
#define CHART_W		640.0
#define CHART_H		260.0
#define ML		64.0	/* margins: left, right, top, bottom */
#define MR		16.0
#define MT		12.0
#define MB		40.0

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_double(v) : 0;
}

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* @raw as it is (markup), then @text escaped */
static void put(FILE *f, const char *raw, const char *text)
{
	fputs(raw, f);
	esc(f, text);
}

/* A check by name from the report's "checks" array. */
static struct json_object *check(struct json_object *doc, const char *name)
{
	struct json_object *a = get(doc, "checks");
	size_t n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(str(json_object_array_get_idx(a, i), "name"), name))
			return json_object_array_get_idx(a, i);
	return NULL;
}

static const char *size_label(double bytes, char *buf, size_t len)
{
	return out_size(bytes > 0 ? (uint64_t)bytes : 0, buf, len);
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
	fprintf(f, "<svg class=\"chart %s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
		"aria-label=\"", cls, CHART_W, CHART_H, CHART_W, CHART_H);
	esc(f, label);
	fprintf(f, "\">\n<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>\n", ML, MT,
		CHART_W - ML - MR, CHART_H - MT - MB);
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
	fprintf(f, "<text class=\"axis-title\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
		(ML + CHART_W - MR) / 2, CHART_H - 6, xt);
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(14 %.0f) rotate(-90)\" text-anchor=\"middle\">"
		"%s</text>\n", (MT + CHART_H - MB) / 2, yt);
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

/* The size sweep: each size written against its latency, coloured by what was read back. */
static void sweep_chart(FILE *f, struct json_object *sweep)
{
	struct json_object *w = get(get(sweep, "figures"), "writes");
	size_t n = w ? json_object_array_length(w) : 0;
	struct axis x = { 0, 1, true }, y = { 0, 1, false };
	double smin = 0, smax = 0, lmax = 0;
	char a[32];

	if (!n) {
		fputs("<p class=\"empty\">The size sweep wrote nothing (see its check above).</p>\n", f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(w, i);
		double s = num(e, "size"), l = num(e, "latency_us");

		smin = !i || s < smin ? s : smin;
		smax = s > smax ? s : smax;
		lmax = l > lmax ? l : lmax;
	}
	x.lo = log10(smin) - 0.15;
	x.hi = log10(smax) + 0.15;
	y.hi = lmax > 0 ? lmax * 1.15 : 1;
	svg_open(f, "sweep-chart", "size sweep: write size against latency");
	for (double v = 0; v <= y.hi; v += step_for(y.hi)) {
		us_label(v, a, sizeof(a));
		y_tick(f, &y, v, a);
	}
	for (size_t i = 0; i < n; i++)
		x_tick(f, &x, num(json_object_array_get_idx(w, i), "size"),
		       size_label(num(json_object_array_get_idx(w, i), "size"), a, sizeof(a)));
	axis_titles(f, "atomic write size (durable, one write each)", "latency");
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(w, i);
		const char *rb = get(e, "read_back") ? str(e, "read_back") : str(e, "write");
		bool ok = !strcmp(rb, "intact");

		fprintf(f, "<circle class=\"sweep-pt %s\" data-size=\"%.0f\" data-result=\"", ok ? "ok" : "bad",
			num(e, "size"));
		esc(f, rb);
		fprintf(f, "\" data-latency-us=\"%.1f\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>%s: %.0f us, ",
			num(e, "latency_us"), px(&x, num(e, "size")), py(&y, num(e, "latency_us")),
			size_label(num(e, "size"), a, sizeof(a)), num(e, "latency_us"));
		esc(f, rb);
		fputs("</title></circle>\n", f);
	}
	fputs("</svg>\n", f);
}

static const char *mode_colour(const char *mode)
{
	static const struct { const char *mode, *colour; } c[] = {
		{ "atomic", "#1f6fb4" }, { "plain", "#6b6b6b" }, { "doublewrite", "#c8372d" },
		{ "pages", "#2a9a3c" }, { "pages-dw", "#9b59b6" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (!strcmp(mode, c[i].mode))
			return c[i].colour;
	return "#c08a00";
}

/* The performance check's latency distribution per mode, p50/p99/p99.9 marked. */
static void cdf_chart(FILE *f, struct json_object *perf)
{
	static const char *const pcts[] = { "p50", "p99", "p99_9" };
	static const double shares[] = { 0.5, 0.99, 0.999 };
	struct json_object *fig = get(perf, "figures");
	struct axis x = { 0, 1, true }, y = { 0, 1, false };
	double lo = 0, hi = 0;
	unsigned int modes = 0;
	char a[32];

	json_object_object_foreach(fig, mode, m) {
		struct json_object *c = get(m, "latency_cdf");
		size_t n = c ? json_object_array_length(c) : 0;

		for (size_t i = 0; i < n; i++) {
			double v = json_object_get_double(json_object_array_get_idx(json_object_array_get_idx(c, i), 0));

			lo = !modes && !i ? v : v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		modes += n > 0;
		(void)mode;
	}
	if (!modes) {
		fputs("<p class=\"empty\">The performance check measured no latencies (see its check above).</p>\n", f);
		return;
	}
	x.lo = floor(log10(lo > 0 ? lo : 1));
	x.hi = ceil(log10(hi > 0 ? hi : 10));
	if (x.hi <= x.lo)
		x.hi = x.lo + 1;
	svg_open(f, "cdf-chart", "latency distribution of the performance check's writes");
	for (double d = x.lo; d <= x.hi; d += 1) {
		us_label(pow(10, d), a, sizeof(a));
		x_tick(f, &x, pow(10, d), a);
	}
	for (double v = 0; v <= 1.0001; v += 0.25) {
		snprintf(a, sizeof(a), "%.0f%%", v * 100);
		y_tick(f, &y, v, a);
	}
	axis_titles(f, "latency of a page write (log scale)", "share of writes at or below");
	json_object_object_foreach(fig, mode2, m2) {
		struct json_object *c = get(m2, "latency_cdf"), *lat = get(m2, "latency_us");
		size_t n = c ? json_object_array_length(c) : 0;
		const char *col = mode_colour(mode2);

		if (!n)
			continue;
		fprintf(f, "<g class=\"cdf\" data-mode=\"%s\" data-points=\"%zu\">\n<polyline class=\"cdf-line\" "
			"stroke=\"%s\" points=\"", mode2, n, col);
		for (size_t i = 0; i < n; i++) {
			struct json_object *p = json_object_array_get_idx(c, i);

			fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(&x, json_object_get_double(json_object_array_get_idx(p, 0))),
				py(&y, json_object_get_double(json_object_array_get_idx(p, 1))));
		}
		fputs("\"/>\n", f);
		for (size_t i = 0; i < n; i++) {
			struct json_object *p = json_object_array_get_idx(c, i);
			double us = json_object_get_double(json_object_array_get_idx(p, 0));
			double sh = json_object_get_double(json_object_array_get_idx(p, 1));

			fprintf(f, "<circle class=\"cdf-pt\" data-mode=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\">"
				"<title>%s: %.1f us, %.2f%%</title></circle>\n", mode2, px(&x, us), py(&y, sh), col, mode2,
				us, sh * 100);
		}
		for (size_t k = 0; k < 3; k++) {
			double us = num(lat, pcts[k]);

			if (us <= 0)
				continue;
			fprintf(f, "<line class=\"pct-mark\" data-mode=\"%s\" data-pct=\"%s\" data-us=\"%.1f\" x1=\"%.1f\" "
				"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"><title>%s %s: %.1f us</title></line>\n",
				mode2, pcts[k], us, px(&x, us), py(&y, shares[k]) - 7, px(&x, us), py(&y, shares[k]) + 7,
				col, mode2, pcts[k], us);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n<table class=\"legend\"><tr><th>mode</th><th>pages/s</th><th>p50</th><th>p99</th>"
	      "<th>p99.9</th></tr>\n", f);
	json_object_object_foreach(fig, mode3, m3) {
		struct json_object *lat = get(m3, "latency_us");

		if (!get(m3, "latency_cdf") || !json_object_array_length(get(m3, "latency_cdf")))
			continue;
		fprintf(f, "<tr class=\"perf-mode\" data-mode=\"%s\"><td><span class=\"swatch\" style=\"background:%s\">"
			"</span>%s</td><td>%.0f</td><td>%.1f us</td><td>%.1f us</td><td>%.1f us</td></tr>\n", mode3,
			mode_colour(mode3), mode3, num(m3, "pages_per_s"), num(lat, "p50"), num(lat, "p99"),
			num(lat, "p99_9"));
	}
	fputs("</table>\n", f);
}

static const char *path_colour(const char *p)
{
	return !strcmp(p, "hardware") ? "#2a9a3c" : !strcmp(p, "software") ? "#e08a1e" : "#9a9a9a";
}

/* The extent map of the test file: each range where it lies in the file, coloured by its path. */
static void extent_chart(FILE *f, struct json_object *map)
{
	struct json_object *e = get(map, "ranges");
	size_t n = e ? json_object_array_length(e) : 0;
	double size = num(map, "file_size"), w = CHART_W - ML - MR;
	char a[32], b[32], c[32], d[32];

	if (!map) {
		fputs("<p class=\"empty\">No extent map: the target is a block device, or its filesystem has no "
		      "FIEMAP.</p>\n", f);
		return;
	}
	fprintf(f, "<p>%.0f extent%s in %.0f range%s over %s, judged at a unit of %s: %s would take the hardware "
		"path, %s the software path%s.</p>\n", num(map, "nr_extents"), num(map, "nr_extents") == 1 ? "" : "s",
		num(map, "nr_ranges"), num(map, "nr_ranges") == 1 ? "" : "s", size_label(size, a, sizeof(a)),
		size_label(num(map, "unit"), b, sizeof(b)), size_label(num(map, "hardware_bytes"), c, sizeof(c)),
		size_label(num(map, "software_bytes"), d, sizeof(d)),
		num(map, "nr_ranges") > (double)n ? " (the first ranges drawn)" : "");
	fprintf(f, "<svg class=\"chart extent-chart\" viewBox=\"0 0 %.0f 70\" width=\"%.0f\" height=\"70\" "
		"role=\"img\" aria-label=\"extent map\">\n<rect class=\"frame\" x=\"%.0f\" y=\"10\" width=\"%.0f\" "
		"height=\"30\"/>\n", CHART_W, CHART_W, ML, w);
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(e, i);
		double l = num(x, "offset"), len = num(x, "length");
		double x0 = ML + (size > 0 ? l / size * w : 0), wd = size > 0 ? len / size * w : 0;

		fprintf(f, "<rect class=\"extent-range\" data-path=\"%s\" data-offset=\"%.0f\" data-length=\"%.0f\" "
			"x=\"%.2f\" y=\"10\" width=\"%.2f\" height=\"30\" fill=\"%s\"><title>%s at %s: %s path, "
			"%.0f extent%s</title></rect>\n", str(x, "path"), l, len, x0, wd > 0.5 ? wd : 0.5,
			path_colour(str(x, "path")), size_label(len, a, sizeof(a)), size_label(l, b, sizeof(b)),
			str(x, "path"), num(x, "extents"), num(x, "extents") == 1 ? "" : "s");
	}
	fprintf(f, "<text class=\"tick\" x=\"%.0f\" y=\"56\">0</text><text class=\"tick\" x=\"%.0f\" y=\"56\" "
		"text-anchor=\"end\">%s</text>\n</svg>\n<p class=\"key\"><span class=\"swatch\" style=\"background:%s\">"
		"</span>hardware path <span class=\"swatch\" style=\"background:%s\"></span>software path "
		"<span class=\"swatch\" style=\"background:%s\"></span>unknown (a hole: not yet written)</p>\n", ML,
		CHART_W - MR, size_label(size, a, sizeof(a)), path_colour("hardware"), path_colour("software"),
		path_colour("unknown"));
}

/* ------------------------------------------------------------------ tables */

static void scalar(FILE *f, struct json_object *v)
{
	if (!v)
		fputs("&mdash;", f);
	else if (json_object_is_type(v, json_type_string))
		esc(f, json_object_get_string(v));
	else
		esc(f, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* An object's members as one table: their names as the header row, their values below. */
static void kv_table(FILE *f, const char *cls, struct json_object *o)
{
	fprintf(f, "<table class=\"kv %s\">\n<tr>", cls);
	json_object_object_foreach(o, k, v) {
		fputs("<th>", f);
		esc(f, k);
		fputs("</th>", f);
		(void)v;
	}
	fputs("</tr>\n<tr>", f);
	json_object_object_foreach(o, k2, v2) {
		fprintf(f, "<td data-key=\"%s\">", k2);
		scalar(f, v2);
		fputs("</td>", f);
	}
	fputs("</tr>\n</table>\n", f);
}

/* An array of objects as a table, the columns from the first object's scalar members. */
static void rows_table(FILE *f, const char *cls, struct json_object *a)
{
	size_t n = a ? json_object_array_length(a) : 0;
	struct json_object *first = n ? json_object_array_get_idx(a, 0) : NULL;

	if (!first || !json_object_is_type(first, json_type_object))
		return;
	fprintf(f, "<table class=\"rows %s\">\n<tr>", cls);
	json_object_object_foreach(first, k, v) {
		if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
			continue;
		fputs("<th>", f);
		esc(f, k);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(a, i);

		fputs("<tr>", f);
		json_object_object_foreach(first, k2, v2) {
			if (json_object_is_type(v2, json_type_object) || json_object_is_type(v2, json_type_array))
				continue;
			fputs("<td>", f);
			scalar(f, get(r, k2));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void checks_table(FILE *f, struct json_object *doc)
{
	struct json_object *a = get(doc, "checks");
	size_t n = a ? json_object_array_length(a) : 0;

	fputs("<table class=\"checks\">\n<tr><th>result</th><th>check</th><th>what it found</th><th>seconds</th></tr>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);

		put(f, "<tr class=\"check\" data-check=\"", str(c, "name"));
		put(f, "\" data-result=\"", str(c, "result"));
		put(f, "\"><td class=\"res ", str(c, "result"));
		put(f, "\">", str(c, "result"));
		put(f, "</td><td class=\"name\">", str(c, "name"));
		put(f, "</td><td class=\"reason\">", str(c, "reason"));
		fprintf(f, "</td><td class=\"num\">%.1f</td></tr>\n", num(c, "seconds"));
	}
	fputs("</table>\n", f);
}

static void findings_table(FILE *f, struct json_object *doc)
{
	struct json_object *a = get(get(check(doc, "discovery"), "figures"), "findings");
	size_t n = a ? json_object_array_length(a) : 0;

	if (!n) {
		fputs("<p class=\"empty\">Discovery made no findings.</p>\n", f);
		return;
	}
	fputs("<table class=\"findings\">\n<tr><th>severity</th><th>finding</th><th>what it means</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(a, i);

		put(f, "<tr class=\"finding\" data-finding=\"", str(x, "id"));
		put(f, "\" data-severity=\"", str(x, "severity"));
		put(f, "\"><td class=\"sev ", str(x, "severity"));
		put(f, "\">", str(x, "severity"));
		put(f, "</td><td>", str(x, "id"));
		put(f, "</td><td>", str(x, "message"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The JSON for tools: '<', '>' and '&' as \u escapes, so nothing in it can end the element. */
static void embed_json(FILE *f, struct json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	fputs("<script type=\"application/json\" id=\"awr-report\">", f);
	for (; *s; s++) {
		if (*s == '<' || *s == '>' || *s == '&')
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputs("</script>\n", f);
}

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;color:#1d1d1f;margin:24px auto;max-width:980px;padding:0 16px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
	".verdict{display:inline-block;padding:2px 12px;border-radius:4px;color:#fff;font-weight:700}"
	".verdict.PASS{background:#2a9a3c}.verdict.FAIL{background:#c8372d}"
	"table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 8px;border-bottom:1px solid #eee;"
	"text-align:left;vertical-align:top}th{font-weight:600;background:#f6f6f6}td.num{text-align:right}"
	".res{font-weight:700}.res.PASS{color:#2a9a3c}.res.FAIL{color:#c8372d}.res.SKIP{color:#8a8a8a}.res.INFO{color:#1f6fb4}"
	".sev.error{color:#c8372d;font-weight:700}.sev.warning{color:#b86e00;font-weight:700}.sev.info{color:#555}"
	".meta td,.meta th{border:0;padding:1px 8px 1px 0}.empty{color:#777;font-style:italic}"
	"svg.chart{display:block;max-width:100%;height:auto}svg .frame{fill:none;stroke:#bbb}"
	"svg .grid{stroke:#eee}svg .tick{font-size:11px;fill:#555}svg .axis-title{font-size:12px;fill:#333}"
	"svg .sweep-pt.ok{fill:#2a9a3c}svg .sweep-pt.bad{fill:#c8372d}svg .cdf-line{fill:none;stroke-width:1.5}"
	"svg .pct-mark{stroke-width:2}.swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 8px}"
		"@media print{body{margin:0;max-width:none}section{break-inside:avoid}}";

static void section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "</section>\n<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

bool report_html_is_report(struct json_object *doc)
{
	struct json_object *checks = get(doc, "checks");

	return checks && json_object_is_type(checks, json_type_array) && *str(doc, "verdict");
}

int report_html(struct json_object *doc, FILE *f)
{
	const char *verdict = str(doc, "verdict");
	struct json_object *x;
	size_t n;

	if (!report_html_is_report(doc))
		return -EINVAL;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
		"img-src data:\">\n%s", GENERATOR);
	esc(f, str(doc, "awr_version"));
	fputs("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>awr qualify ", f);
	esc(f, verdict);
	fputs(": ", f);
	esc(f, str(doc, "path"));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<section id=\"summary\">\n<h1>awr qualify "
		"<span class=\"verdict %s\" id=\"verdict\">", style, !strcmp(verdict, "PASS") ? "PASS" : "FAIL");
	esc(f, verdict);
	fputs("</span></h1>\n<table class=\"meta\">\n<tr><th>path</th><td id=\"path\">", f);
	esc(f, str(doc, "path"));
	fputs("</td></tr>\n<tr><th>target</th><td>", f);
	esc(f, str(doc, "target"));
	fputs(" (", f);
	esc(f, str(doc, "target_type"));
	fputs(get(doc, "scratch_file") && json_object_get_boolean(get(doc, "scratch_file")) ? ", a scratch file" : "", f);
	fputs(")</td></tr>\n", f);
	x = get(get(get(check(doc, "discovery"), "figures"), "views"), "sysfs");
	if (x) {
		fputs("<tr><th>device</th><td>", f);
		esc(f, str(x, "disk"));
		fputs("</td></tr>\n", f);
	}
	fputs("<tr><th>kernel</th><td id=\"kernel\">", f);
	esc(f, str(doc, "kernel"));
	fputs("</td></tr>\n<tr><th>awr</th><td>", f);
	esc(f, str(doc, "awr_version"));
	fputs("</td></tr>\n<tr><th>run</th><td>", f);
	esc(f, str(doc, "date"));
	fprintf(f, "%s, %.1f s: %.0f passed, %.0f failed, %.0f skipped, %.0f information only</td></tr>\n</table>\n",
		get(doc, "quick") && json_object_get_boolean(get(doc, "quick")) ? " (quick)" : "", num(doc, "seconds"),
		num(doc, "passed"), num(doc, "failed"), num(doc, "skipped"), num(doc, "info"));
	section(f, "checks", "Checks");
	checks_table(f, doc);
	x = get(doc, "notes");
	n = x ? json_object_array_length(x) : 0;
	for (size_t i = 0; i < n; i++) {
		fputs("<p class=\"note\">note: ", f);
		esc(f, json_object_get_string(json_object_array_get_idx(x, i)));
		fputs("</p>\n", f);
	}
	section(f, "limits", "Atomic write limits (effective)");
	kv_table(f, "limits", get(doc, "limits"));
	section(f, "findings", "Findings");
	findings_table(f, doc);
	section(f, "sweep", "Size sweep");
	sweep_chart(f, check(doc, "size_sweep"));
	section(f, "latency", "Latency of atomic, plain and doublewrite page writes");
	cdf_chart(f, check(doc, "performance"));
	section(f, "refusals", "Writes the kernel must refuse");
	rows_table(f, "refusal-cases", get(get(check(doc, "kernel_refusals"), "figures"), "cases"));
	section(f, "torn", "Concurrent writers");
	x = get(get(get(check(doc, "concurrent_torn"), "figures"), "verify"), "counts");
	if (x)
		kv_table(f, "torn-counts", x);
	else
		fputs("<p class=\"empty\">The concurrency check did not verify (see its check above).</p>\n", f);
	x = get(get(check(doc, "crash"), "figures"), "cycles");
	if (x && json_object_array_length(x)) {
		section(f, "crash", "Crash cycles");
		rows_table(f, "crash-cycles", x);
	}
	section(f, "extents", "Extent map of the test file");
	extent_chart(f, get(doc, "extent_map"));
	section(f, "json", "The JSON report");
	fputs("<p>The report this page was drawn from, as <code>awr qualify -o json</code> wrote it, is embedded in "
	      "the element <code>script#awr-report</code> (type application/json) for tools.</p>\n", f);
	embed_json(f, doc);
	fputs("</section>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* May @path be written? A new or empty file, a report awr wrote before, or anything with --force. */
int report_html_dest_ok(const char *path, bool force)
{
	char head[1024] = "";
	struct stat st;
	ssize_t n;
	int fd;

	if (force || lstat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode)) {
		out_error("%s is not a regular file: give a new file name for the HTML report", path);
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
	out_error("%s holds data that is not an awr report: give a new file name, or --force to replace it", path);
	return -EEXIST;
}

int report_html_file(struct json_object *doc, const char *path)
{
	int fd, ret;
	FILE *f;

	if (!report_html_is_report(doc)) {
		out_error("the JSON is not an awr qualify report (no \"checks\" and \"verdict\"): give a file that "
			  "awr qualify --report or -o json wrote");
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
