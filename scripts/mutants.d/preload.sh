# SPDX-License-Identifier: MIT
# Description: the mutants of libatomicwr-preload (preload/), issue 38: the preload must never
# hurt the program it runs in (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant preload-resolved-only "a file is named by its resolved path only, not by the path the program gave" \
	"preload_names" preload/preload.c \
	'	if (path && given_path(dirfd, path, buf, sizeof(buf)) && awr__names_match(&names, buf))' \
	'	if (0)'

mutant preload-given-only "a file is named by the path the program gave only, not by its resolved path" \
	"preload_names preload_fds" preload/preload.c \
	'	return fd_path(fd, buf, sizeof(buf)) && awr__names_match(&names, buf);' \
	'	return false;'

mutant preload-start-no-subdirs "the check at start looks only in a pattern's directory ('*' not crossing '/', as glob)" \
	"preload_names" preload/preload.c \
	'		return ftw->level >= WALK_DEPTH ? FTW_SKIP_SUBTREE : FTW_CONTINUE;' \
	'		return ftw->level >= 1 ? FTW_SKIP_SUBTREE : FTW_CONTINUE;'

mutant preload-separators-silent "a pattern list of separators only names nothing without a word" \
	"preload_names" preload/preload.c \
	$'\telse if (ret == -ENOENT)\n\t\tsay("libatomicwr-preload: AWR_PRELOAD_FILES: %s; every write goes down as it was",\n\t\t    why);' \
	$'\telse if (ret == -ENOENT)\n\t\t;'

mutant preload-inherited-ignored "descriptors an exec'd program inherits are not looked at at start" \
	"preload_fds" preload/preload.c \
	$'\tadopt_inherited();\n' \
	''

mutant preload-dup-direct "O_DIRECT taken as kept since the open, not read from the open file description" \
	"preload_fds preload_writes" preload/preload.c \
	$'\telse if (!(fl & O_DIRECT))\n\t\tCOUNT(plain_buffered);' \
	$'\telse if (0)\n\t\tCOUNT(plain_buffered);'

mutant preload-no-identity "a named number closed unseen and reused keeps its state (no st_dev/st_ino check)" \
	"preload_fds" preload/preload.c \
	'	if (fstat(fd, &st) || st.st_dev != s->dev || st.st_ino != s->ino) {' \
	'	if (fstat(fd, &st)) {'

mutant preload-append-atomic "O_APPEND and RWF_APPEND page writes made atomic (they land at the end)" \
	"preload_fds" preload/preload.c \
	$'\tif ((fl & O_APPEND) || (rwf & RWF_APPEND))\n\t\tCOUNT(plain_append);\n\telse if' \
	$'\tif (0)\n\t\tCOUNT(plain_append);\n\telse if'

mutant preload-first-sqe-only "only the first SQE queued before an io_uring submit is looked at" \
	"preload_writes" preload/preload.c \
	'	for (unsigned int h = sq->sqe_head; h != sq->sqe_tail; h++) {' \
	'	for (unsigned int h = sq->sqe_head; h != sq->sqe_tail; h = sq->sqe_tail) {'

mutant preload-getenv "a set-user-ID program reads its caller's environment (getenv, AT_SECURE not checked)" \
	"preload_secure" preload/preload.c \
	'	return secure_getenv(name);' \
	'	return getenv(name);' \
	'	if (getauxval(AT_SECURE) || !configure()) {' \
	'	if (!configure()) {'

mutant preload-stats-trunc "an existing counters file opened with O_TRUNC (a second program truncates the live one)" \
	"preload_stats_file" preload/stats_file.c \
	'		fd = openat(dfd, leaf, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);' \
	'		fd = openat(dfd, leaf, O_RDWR | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);'

mutant preload-stats-no-lock "the counters file's writer lock never seen held (a second program zeroes it)" \
	"preload_stats_file" preload/stats_file.c \
	'	return !fcntl(fd, F_OFD_SETLK, &fl);' \
	'	return fl.l_type == F_WRLCK;'

mutant preload-stats-no-reserve "the counters file sized with ftruncate, its blocks not reserved (SIGBUS when full)" \
	"preload_stats_file" preload/stats_file.c \
	'	int err = posix_fallocate(fd, 0, sizeof(struct awr_preload_stats));' \
	'	int err = ftruncate(fd, sizeof(struct awr_preload_stats)) ? errno : 0;'

mutant preload-stats-any-file "an existing file that is not a counters file is taken (and zeroed)" \
	"preload_stats_file" preload/stats_file.c \
	'	if (!*made && !is_stats(fd, &st))' \
	'	if (0)'

mutant preload-stats-any-symlink "a symlink on the way to the counters file followed whoever owns it" \
	"preload_stats_file" preload/stats_file.c \
	'	if (st.st_uid != 0 && st.st_uid != geteuid()) {' \
	'	if (0) {'

# issue 39: a write of several whole pages split into atomic page writes
mutant preload-split-first-only "only the first page of a split write made atomic, the rest written plain" \
	"preload_split" preload/preload.c \
	'			ssize_t ret = atomic_pwrite(fd, &one, off + (int64_t)done, flags);' \
	'			ssize_t ret = done ? real_pwritev2(fd, &one, 1, off + (int64_t)done, flags) : atomic_pwrite(fd, &one, off + (int64_t)done, flags);'

mutant preload-split-short-count "a split write that fails part way returns the whole length" \
	"preload_split" preload/preload.c \
	'				return (ssize_t)done + (ret > 0 ? ret : 0);	/* short */' \
	'				return (ssize_t)(pages * page_size);	/* short */'

mutant preload-split-flags-lost "the caller's pwritev2 flags (RWF_DSYNC) dropped from the page writes" \
	"preload_split" preload/preload.c \
	'			ssize_t ret = atomic_pwrite(fd, &one, off + (int64_t)done, flags);' \
	'			ssize_t ret = atomic_pwrite(fd, &one, off + (int64_t)done, 0);'

mutant preload-split-across-iovecs "a write whose pages straddle iovecs split anyway (page-sized pieces)" \
	"preload_split" preload/preload.c \
	'		whole &= iov[i].iov_len % page_size == 0;' \
	'		whole = true;'

mutant preload-split-fsize-signal "a split write running into RLIMIT_FSIZE writes the page at the limit (SIGXFSZ)" \
	"preload_split" preload/preload.c \
	'	if (pages < 2 || getrlimit(RLIMIT_FSIZE, &r) || r.rlim_cur == RLIM_INFINITY ||' \
	'	if (1 || getrlimit(RLIMIT_FSIZE, &r) || r.rlim_cur == RLIM_INFINITY ||'
