// SPDX-License-Identifier: MIT
/*
 * awr journal-serve --listen ADDR:PORT --dir DIR: keep the stress journals
 * of machines under test (awr stress/verify --journal tcp://HOST:PORT), so
 * that a journal survives the power cut of the machine that writes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"

/* --secret-file names a readable regular file (its mode is checked by the library). */
int secret_file_check(const char *file)
{
	struct stat st;

	if (!file)
		return 0;
	errno = 0;
	if (lstat(file, &st) || !S_ISREG(st.st_mode) || access(file, R_OK)) {
		out_error("cannot read the secret file %s: %s", file,
			  errno ? strerror(errno) : "not a regular file (a link, device, FIFO or "
						    "directory)");
		return -EINVAL;
	}
	return 0;
}

static void on_ready(const char *addr, void *arg)
{
	printf("awr journal-serve: listening on %s, journals in %s\n", addr, (const char *)arg);
	fflush(stdout);
}

static void on_stop(int sig)
{
	stop_signal = sig;
	awr_journal_serve_stop();
}

int cmd_journal_serve(int argc, const char **argv)
{
	char *listen = NULL, *dir = NULL, *secret = NULL;
	int allow_remote = 0, max_clients = 16;
	struct poptOption table[] = {
		{ "listen", 0, POPT_ARG_STRING, &listen, 0,
		  "address and port to listen on: 127.0.0.1:PORT, [::1]:PORT; another address "
		  "needs --allow-remote; port 0 picks a free one", "ADDR:PORT" },
		{ "dir", 0, POPT_ARG_STRING, &dir, 0,
		  "keep each client's journal as DIR/NAME.journal", "DIR" },
		{ "secret-file", 0, POPT_ARG_STRING, &secret, 0,
		  "the shared secret (mode 0600; default: $AWR_JOURNAL_SECRET)", "FILE" },
		{ "allow-remote", 0, POPT_ARG_NONE, &allow_remote, 0,
		  "accept clients on other machines (default: loopback only)", NULL },
		{ "max-clients", 0, POPT_ARG_INT, &max_clients, 0,
		  "connections at once (default 16)", "N" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_journal_serve_opts o = { 0 };
	struct cmd_ctx c;
	int ret, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, NULL, false))
		return AWR_EXIT_USAGE;
	/* 0 would be the library's default: the option counts connections */
	if (max_clients < 1) {
		out_error("--max-clients %d must be between 1 and 1024", max_clients);
		goto out;
	}
	if (secret_file_check(secret))
		goto out;
	o.listen = listen;
	o.dir = dir;
	o.secret_file = secret;
	o.max_clients = (unsigned int)max_clients;
	o.flags = allow_remote ? AWR_JSERVE_ALLOW_REMOTE : 0;
	o.ready = on_ready;
	o.arg = dir;
	catch_stop_signals(on_stop);
	/* a log reader that went away (stderr into a closed pipe) must not end the server: EPIPE */
	signal(SIGPIPE, SIG_IGN);
	ret = awr_journal_serve(&o);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (!ret) {
		out_error("journal-serve: stopped by %s",
			  strsignal(stop_signal ? stop_signal : SIGTERM));
		rc = stop_signal ? 128 + stop_signal : AWR_EXIT_OK;
	} else {
		out_error("%s", awr_last_error());
	}
out:
	cmd_done(&c);
	return rc;
}
