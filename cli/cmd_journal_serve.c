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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"

/* A shared secret that cannot be used, in words. */
static bool secret_error(const char *secret_file, int ret)
{
	const char *secret = secret_file ? secret_file : "$" "AWR_JOURNAL_SECRET";

	if (ret == -ENOKEY)
		out_error("no shared secret of at least 32 bytes in %s: give --secret-file FILE "
			  "(mode 0600) or set AWR_JOURNAL_SECRET; make one with: head -c 32 "
			  "/dev/urandom | base64", secret);
	else if (ret == -EKEYREVOKED)
		out_error("the shared secret in %s does not look random (under 128 bits by its "
			  "byte counts: a repeated character, a short sentence): make one with: "
			  "head -c 32 /dev/urandom | base64",
			  secret);
	else if (ret == -EPERM)
		out_error("refusing the secret file %s: group or others may read it; chmod 600 %s",
			  secret, secret);
	else if (ret == -EFBIG)
		out_error("the secret file %s holds more than 1024 bytes: give a shorter secret",
			  secret);
	else
		return false;
	return true;
}

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

/* Why a tcp:// journal could not be used, for awr stress and awr verify. */
bool journal_remote_error(const char *verb, const char *url, const char *secret_file, int ret)
{
	if (strncmp(url, "tcp://", 6))
		return false;
	if (secret_error(secret_file, ret))
		return true;
	switch (ret) {
	case -EINVAL:
		out_error("cannot %s with journal %s: give tcp://HOST:PORT or tcp://HOST:PORT/NAME "
			  "(NAME 1 to 63 of A-Z a-z 0-9 . _ -, not beginning with a dot)", verb,
			  url);
		break;
	case -EKEYREJECTED:
		out_error("the journal server at %s refused the secret (its log names the reason): "
			  "give the secret the server was started with", url);
		break;
	case -EPROTO:
		out_error("a reply of the journal server at %s failed its MAC or was malformed: "
			  "the connection was tampered with, or the server has another secret",
			  url);
		break;
	case -ECONNABORTED:
		out_error("the journal server at %s closed the connection before its greeting: not "
			  "an awr journal server, or it refuses this address (not loopback without "
			  "--allow-remote)", url);
		break;
	case -EMLINK:
		out_error("the journal server at %s refuses that journal: its file has more than "
			  "one name (a hard link into the server's directory, perhaps to another's "
			  "file)", url);
		break;
	case -EUSERS:
		out_error("the journal server at %s has --max-clients clients connected already: "
			  "try again when one has ended, or start it with a higher --max-clients",
			  url);
		break;
	case -EBUSY:
		out_error("journal %s is being appended to by another client: give another NAME "
			  "(tcp://HOST:PORT/NAME)", url);
		break;
	case -ENOENT:
		out_error("the journal server at %s has no such journal: give the URL awr stress "
			  "used (its NAME defaults to the host name of the machine that ran it)",
			  url);
		break;
	case -ECONNRESET:
		out_error("the journal server at %s closed the connection: its log names the "
			  "reason (a frame that failed its MAC, a record it could not store)", url);
		break;
	case -EADDRNOTAVAIL:
		out_error("cannot %s with journal %s: its host is not found", verb, url);
		break;
	default:
		if (ret == -EBADMSG || ret == -ENOEXEC)
			return false;	/* about the journal's content: the callers say it */
		out_error("cannot %s with journal %s: %s", verb, url, strerror(-ret));
		break;
	}
	return true;
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
	if (!listen || !dir) {
		out_error("give --listen ADDR:PORT (such as 127.0.0.1:7070) and --dir DIR");
		goto out;
	}
	if (max_clients < 1 || max_clients > 1024) {
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
	} else if (ret == -EINVAL) {
		out_error("--listen %s: give ADDR:PORT, such as 127.0.0.1:7070 or [::1]:7070",
			  listen);
	} else if (ret == -EADDRNOTAVAIL) {
		out_error("--listen %s: not a loopback address (or not found): the server listens "
			  "on 127.0.0.1, ::1 or a wildcard address (loopback peers only) unless "
			  "--allow-remote", listen);
	} else if (ret == -ENOTDIR || ret == -ENOENT) {
		out_error("--dir %s: %s: give an existing directory for the journals", dir,
			  ret == -ENOTDIR ? "not a directory" : "no such directory");
	} else if (ret == -EMFILE) {
		struct rlimit r = { 0, 0 };

		getrlimit(RLIMIT_NOFILE, &r);
		out_error("--max-clients %d needs %d file descriptors (2 a client, 16 for "
			  "connections authenticating, 16 more), but the hard limit is %llu "
			  "(ulimit -Hn): give a smaller --max-clients or raise the limit",
			  max_clients, 2 * max_clients + 32, (unsigned long long)r.rlim_max);
	} else if (!secret_error(secret, ret)) {
		out_error("journal-serve: %s", strerror(-ret));
	}
out:
	cmd_done(&c);
	return rc;
}
