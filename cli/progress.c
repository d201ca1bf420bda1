// SPDX-License-Identifier: MIT
/*
 * Progress on a terminal for the commands that run long (qualify, stress, verify, prepare): a
 * thread redraws one line on standard error every 250 ms while the library works, and clears it
 * at the end. Only in normal output with standard error a terminal: never in JSON, a pipe or a log.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "awr.h"

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	char label[96];
	uint64_t start;			/* awr__now_ns() */
	progress_fn fn;
	void *arg;
	size_t width;
};

static double elapsed(const struct progress *p)
{
	return (double)(awr__now_ns() - p->start) / 1e9;
}

static void draw(struct progress *p)
{
	char what[160] = "";
	size_t n;

	if (p->fn)
		p->fn(p->arg, elapsed(p), what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%.0f s", elapsed(p));
	n = (size_t)fprintf(stderr, "\r%s: %s", p->label, what);
	if (n < p->width)
		fprintf(stderr, "%*s", (int)(p->width - n), "");
	p->width = n;
	fflush(stderr);
}

static void *ticker(void *arg)
{
	struct progress *p = arg;
	uint64_t ns;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		draw(p);
		ns = awr__realtime_ns() + 250000000ULL;	/* the condition's clock: CLOCK_REALTIME */
		pthread_cond_timedwait(&p->cond, &p->lock,
				       &(struct timespec){ (time_t)(ns / 1000000000ULL),
							   (long)(ns % 1000000000ULL) });
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static bool progress_wanted(void)
{
	return out_mode == OUT_NORMAL && isatty(STDERR_FILENO);
}

struct progress *progress_start(const char *label, progress_fn fn, void *arg)
{
	struct progress *p;

	if (!progress_wanted() || !(p = calloc(1, sizeof(*p))))
		return NULL;
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->fn = fn;
	p->arg = arg;
	p->start = awr__now_ns();
	draw(p);	/* at once: a step shorter than the thread's first turn is still shown */
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, ticker, p)) {
		free(p);
		return NULL;
	}
	return p;
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	fprintf(stderr, "\r%*s\r", (int)p->width, "");
	fflush(stderr);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

/* ---- what the line says ---- */

void progress_seconds(void *arg, double el, char *buf, size_t len)
{
	const double *total = arg;

	if (*total > 0)
		snprintf(buf, len, "%.1f of %.0f s (%.0f%%)", el < *total ? el : *total, *total,
			 100.0 * (el < *total ? el : *total) / *total);
	else
		snprintf(buf, len, "%.0f s", el);
}

/* "1.2 GiB of 4 GiB VERB (30%), 12 s"; without a total "1.2 GiB VERB, 12 s" */
static void progress_bytes(uint64_t done, uint64_t total, const char *verb, double el, char *buf,
			   size_t len)
{
	char a[32], b[32];

	if (!total) {
		snprintf(buf, len, "%s %s, %.0f s", awr__human_bytes(done, a, sizeof(a)), verb, el);
		return;
	}
	if (done > total)
		done = total;
	snprintf(buf, len, "%s of %s %s (%.0f%%), %.0f s", awr__human_bytes(done, a, sizeof(a)),
		 awr__human_bytes(total, b, sizeof(b)), verb, 100.0 * (double)done / (double)total,
		 el);
}

/* bytes allocated to the file (st_blocks) against its size: awr prepare */
void progress_allocated(void *arg, double el, char *buf, size_t len)
{
	const struct progress_file *f = arg;
	struct stat st;

	if (fstat(f->fd, &st) || !f->total)
		snprintf(buf, len, "%.0f s", el);
	else
		progress_bytes((uint64_t)st.st_blocks * 512, f->total, "allocated", el, buf, len);
}

/* bytes this process read from storage (/proc/self/io read_bytes) against the target: awr verify */
void progress_read(void *arg, double el, char *buf, size_t len)
{
	const struct progress_file *f = arg;
	uint64_t done = awr__io_read_bytes();

	progress_bytes(done > f->base ? done - f->base : 0, f->total, "read", el, buf, len);
}
