// SPDX-License-Identifier: MIT
/*
 * awr: the command table and dispatch. cli/ parses and renders, nothing else:
 * each command parses its options (args.c), calls the library stage that
 * does the work (discover, decide, write, verify, bench, qualify, database)
 * and renders the typed result it gets back through one output layer
 * (output.c, fields.c: field tables walked by the text, JSON and Prometheus
 * back ends), or the HTML report (report_html.c). Decisions, findings and
 * verdicts are the library's; a command only says them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "awr.h"

/* What awr list's columns hold (awr list --help, awr-list(1)). */
static const struct awr_note list_columns[] = {
	{ "NAME", "the kernel's name of the disk (sysfs /sys/block); hidden NVMe path disks are "
		  "left out: awr probe shows them as the legs of their multipath head" },
	{ "TRANSPORT", "nvme, scsi, virtio, loop, dm, md, ..." },
	{ "MODEL", "the model the device reports (sysfs device/model), - when none" },
	{ "SERIAL", "its serial number (NVMe SN, SCSI VPD page 80h, virtio serial), - when none" },
	{ "FIRMWARE", "its firmware revision (NVMe FR, SCSI INQUIRY revision), - when none" },
	{ "LBS", "the logical block size in bytes" },
	{ "UNIT_MIN", "the smallest atomic write (sysfs queue/atomic_write_unit_min_bytes)" },
	{ "UNIT_MAX", "the largest atomic write (queue/atomic_write_unit_max_bytes); 0: none" },
	{ "MAX", "the most bytes one atomic write may span (queue/atomic_write_max_bytes)" },
	{ "BOUNDARY", "an atomic write may not cross a multiple of this (0: no boundary)" },
	{ "DEVICE", "the device's own limit: NVMe AWUPF, or NAWUPF when NSFEAT bit 1 is set, SCSI "
		    "MATL (MAXIMUM ATOMIC TRANSFER LENGTH, blocks); read only as root; a cloud "
		    "provider's statement after it (AWUPF 0,AWS:16K)" },
	{ "PARTS", "partitions as aligned/total: aligned when the start is a multiple of "
		   "max(unit_min, boundary); - when none" },
	{ "VERDICT", "atomic (more than one block), single-block (single_block in JSON), none "
		     "(unit_max 0), misaligned (a partition starts off the alignment) or unknown "
		     "(a kernel before 6.11)" },
	{ "CACHE", "back (a volatile write cache), through (none), back+fua or thru+fua "
		   "(queue/fua 1), - (not read)" },
	{ "MOUNTS/HOLDERS", "mounted filesystems as NAME:MOUNTPOINT(FSTYPE), then the dm and md "
			    "devices built on it" },
	{ NULL, NULL }
};

#define EXAMPLES(...) ((const struct awr_example[]){ __VA_ARGS__, { NULL, NULL } })

/*
 * The commands: a one-line purpose, the synopsis, examples and notes. With each command's
 * option table (its popt descriptions) they make --help, awr-COMMAND(1) and the completion.
 */
const struct awr_cmd awr_commands[] = {
	{ "probe", "show statx, sysfs and device limits, effective limits and findings",
	  cmd_probe, false, "PATH [--require SIZE]",
	  EXAMPLES({ "What a database file can write atomically, and why",
		     "awr probe /var/lib/mysql/ibdata1" },
		   { "A script's test that 16 KiB pages are untorn",
		     "awr probe --require 16k /srv/db/datafile && "
		     "echo \"16 KiB pages are untorn\"" },
		   { "The views of a disk as JSON", "awr probe -o json /dev/nvme0n1" }) },
	{ "check", "would a write at --offset of --length be atomic? which rule fails?",
	  cmd_check, false, "PATH --offset O --length L [--buffered] [--segments N]",
	  EXAMPLES({ "Is the second 16 KiB page of a file written atomically?",
		     "awr check /srv/db/datafile --offset 16k --length 16k" }) },
	{ "extents", "a file's extents: which are aligned to a unit, the misaligned ranges",
	  cmd_extents, false, "FILE [--unit U]",
	  EXAMPLES({ "How much of a data file can take the hardware path for 16 KiB writes",
		     "awr extents /srv/db/datafile --unit 16k" }) },
	{ "prepare", "aligned preallocation of a new file for atomic writes of a unit",
	  cmd_prepare, true, "FILE --size SIZE --unit U [--hint-only]",
	  EXAMPLES({ "A new 1 GiB file whose 16 KiB units all sit on aligned extents",
		     "awr prepare /srv/db/new.dat --size 1G --unit 16k" }) },
	{ "list", "every block device with its atomic write limits, one line each", cmd_list,
	  false, "[--all | --no-virtual]",
	  EXAMPLES({ "Every disk of the machine, one line each", "awr list" },
		   { "The same for a script", "awr list -o json" },
		   { "Without loop, zram and other virtual devices", "awr list --no-virtual" },
		   { "node_exporter's textfile collector",
		     "awr list -o prometheus > /var/lib/prometheus/node-exporter/awr.prom" }),
	  "Columns", list_columns },
	{ "decode", "analyse nvme-cli / sg_vpd output or saved identify and VPD dumps",
	  cmd_decode, false,
	  "FILE... [--reading N] | [--nvme-ctrl FILE] [--nvme-ns FILE] | --scsi-vpd FILE "
	  "[--lbs N] [--pbs N] [--max-segments N --max-hw-bytes N] [--chunk-bytes N] "
	  "[--kernel VERSION]",
	  EXAMPLES({ "What the kernel makes of an NVMe controller, straight from nvme-cli",
		     "nvme id-ctrl /dev/nvme0 | awr decode -" },
		   { "Saved Identify Controller and Namespace output, answered for Linux 6.12",
		     "awr decode id-ctrl.txt id-ns.txt --kernel 6.12" },
		   { "A SCSI disk's Block Limits VPD page with its block size",
		     "sg_vpd -p bl /dev/sda > bl.txt && awr decode bl.txt --lbs 512" }) },
	{ "write", "atomic writes from a pattern or a file, optionally read back", cmd_write, true,
	  "PATH --offset O --length L [--unit U] [--pattern BYTE | --input FILE] [--dsync] "
	  "[--verify] [--engine sync|uring|nvme|scsi] [--qd N] [--report-path] [--force]",
	  EXAMPLES({ "1 MiB in durable 16 KiB atomic writes, read back",
		     "awr write /srv/db/scratch --offset 0 --length 1M --unit 16k --dsync "
		     "--verify" },
		   { "64 MiB through io_uring, 64 writes in flight",
		     "awr write /srv/db/scratch --offset 0 --length 64M --unit 16k --engine uring "
		     "--qd 64" }) },
	{ "bench", "atomic vs plain vs doublewrite page writes: pages/s, MB/s, latency",
	  cmd_bench, true,
	  "PATH [--unit U] [--qd N] [--jobs J] [--sqpoll] [--fixed-buffers] [--batch N] "
	  "[--seconds S] [--size SPAN] [--mode atomic|plain|doublewrite|pages|all] "
	  "[--order random|sequential] [--durability fdatasync|dsync|none] [--force]",
	  EXAMPLES({ "16 KiB pages, 32 in flight, 10 s per mode",
		     "awr bench /srv/db/benchfile --unit 16k --qd 32 --seconds 10" }) },
	{ "stress", "concurrent stamped atomic writers, journaled for a crash check", cmd_stress,
	  true,
	  "PATH --unit U [--threads T] [--seconds S | --writes N] [--dsync] "
	  "[--journal FILE|URL [--secret-file FILE]] [--size SPAN] [--no-atomic] [--force] "
	  "[--journal-force]",
	  EXAMPLES({ "A minute of stamped writes while the power is cut",
		     "awr stress /mnt/scratch/f --unit 16k --seconds 60 "
		     "--journal /var/tmp/awr.journal" },
		   { "The journal on a journal server that keeps its power",
		     "awr stress /mnt/scratch/f --unit 16k --journal tcp://127.0.0.1:7070/f "
		     "--secret-file ~/.awr-secret" }) },
	{ "verify", "scan stamped units: torn, corrupt, misplaced, lost writes", cmd_verify, false,
	  "PATH --unit U [--journal FILE|URL [--secret-file FILE]] [--crash-time NS] "
	  "[--size SPAN] [--show N]",
	  EXAMPLES({ "After the reboot: torn units and lost acknowledged writes",
		     "awr verify /mnt/scratch/f --unit 16k --journal /var/tmp/awr.journal" }) },
	{ "replay", "list a dm-log-writes log, or write the device's state at an entry, flush or "
		    "mark",
	  cmd_replay, true,
	  "LOG [--target DEV [--to-entry N | --to-flush K | --to-mark NAME] [--from-entry M] "
	  "[--force]]",
	  EXAMPLES({ "The entries, flush points and marks of a log", "awr replay /dev/sdc" },
		   { "The device as it was at the mark mkfs",
		     "awr replay /dev/sdc --target /var/tmp/state.img --to-mark mkfs" }) },
	{ "journal-serve", "keep stress journals of other machines (tcp://), to survive their "
			   "power cut",
	  cmd_journal_serve, false,
	  "--listen ADDR:PORT --dir DIR [--secret-file FILE] [--allow-remote] [--max-clients N]",
	  EXAMPLES({ "Keep the journals of this machine's stress runs in /srv/journals",
		     "awr journal-serve --listen 127.0.0.1:7070 --dir /srv/journals "
		     "--secret-file ~/.awr-secret" }) },
	{ "qualify", "scripted device qualification: every check PASS/FAIL/SKIP, a verdict and "
	  "its scope",
	  cmd_qualify, true,
	  "PATH [--quick] [--crash] [--require-hardware] [--report FILE] [--html FILE] [--force] "
	  "[--create] [--for innodb|postgresql]",
	  EXAMPLES({ "Qualify a disk (its data is lost) and keep the report",
		     "awr qualify /dev/nvme0n1 --force --report nvme0n1.json --html nvme0n1.html" },
		   { "A quick run in a directory of a filesystem, crashing only a scratch XFS of "
		     "its own", "awr qualify /srv/db --quick --crash -o json" },
		   { "FAIL a filesystem whose atomic writes are its software path alone (no "
		     "hardware atomics below)",
		     "awr qualify /srv/db --quick --require-hardware" }) },
	{ "report", "draw a saved qualify report (JSON) as one self-contained HTML page",
	  cmd_report, false, "FILE.json --html OUT [--force]",
	  EXAMPLES({ "The page of a saved report",
		     "awr report nvme0n1.json --html nvme0n1.html" }) },
	{ "database", "may a data directory's doublewrite buffer / full_page_writes be turned "
		      "off? (reads only)",
	  cmd_database, false, "DATADIR [--for innodb|postgresql] [--atomic-writes] [--files]",
	  EXAMPLES({ "May MariaDB or MySQL run with innodb_doublewrite=OFF here? (the engine "
		     "from its files)", "awr database /var/lib/mysql" },
		   { "May PostgreSQL run with full_page_writes=off? Every file with its reasons",
		     "awr database /var/lib/postgresql/17/main --for postgresql --files" },
		   { "The verdict for a script or a fleet",
		     "awr database /var/lib/mysql --for innodb -o json" }) },
	{ "preload-stats", "the counters of a program run under libatomicwr-preload: page writes "
			   "made atomic",
	  cmd_preload_stats, false, "FILE",
	  EXAMPLES({ "What the preload made atomic in a server it ran in",
		     "awr preload-stats /run/mysqld/awr-preload.stats" }) },
	{ "help", "show the commands, or the options of one: awr help COMMAND", cmd_help, false,
	  "[COMMAND]", EXAMPLES({ "The options and examples of awr probe", "awr help probe" }) },
	{ "version", "library and tool versions, the running kernel and what it supports",
	  cmd_version, false, "",
	  EXAMPLES({ "The versions and the kernel's atomic write rules", "awr --version" },
		   { "The same as JSON", "awr version -o json" }) },
};

const size_t awr_nr_commands = sizeof(awr_commands) / sizeof(awr_commands[0]);

int main(int argc, const char **argv)
{
	const struct awr_cmd *c;
	int rc;

	/* a tool that writes raw devices must not lend its privileges to whoever runs it */
	if (getuid() != geteuid() || getgid() != getegid()) {
		out_error("refusing to run set-user-ID or set-group-ID: run awr as the user whose "
			  "rights it should have");
		return AWR_EXIT_USAGE;
	}
	if (argc < 2) {
		help_usage(stderr);
		return AWR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help_usage(stdout);
		return AWR_EXIT_OK;
	}
	/* --version is the version command, through the same output layer (-o json included) */
	c = awr_command(strcmp(argv[1], "--version") ? argv[1] : "version");
	if (!c) {
		out_error("unknown command '%s'", argv[1]);
		help_usage(stderr);
		return AWR_EXIT_USAGE;
	}
#ifdef AWR_TEST_HOOKS
	/*
	 * the writing commands decide safety and partitions from the real /sys, never
	 * AWR_SYSFS_ROOT
	 */
	if (c->writes)
		awr_set_sysfs_root("/sys");
#endif
	out_prescan(argc - 1, argv + 1);
	rc = c->handler(argc - 1, argv + 1);
	out_finish(rc);
	return rc;
}
