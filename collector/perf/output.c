/*
 * The bundle an import writes: its header (unit perf, the TSC clock, the
 * recorded command and the PMU's configuration for the decoder), the
 * thread streams as the splitter hands them over, then per process image a
 * sideband file (PROCESS_START, then its records) and the summary.
 */
#include "import_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwt_bundle.h"

/* Streams are written in pieces of about this. */
#define STREAM_FLUSH (256u << 10)

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int stream_flush(struct import *im, struct istream *s)
{
	int fd, err;

	if (!s->len)
		return 0;
	if (!s->path) {
		s->path = malloc(strlen(im->dir) + 64);
		if (!s->path)
			return -hie_nomem;
		sprintf(s->path, "%s/%s/%" PRIu32 ".%" PRIu32 "-%" PRIu32 "%s", im->dir,
			im->spe.have_info ? "spe" : "streams", s->image->pid, s->image->generation,
			s->tid, im->spe.have_info ? ".spe" : im->etm.have_info ? ".etm" : ".pt");
	}
	fd = open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (s->created ? 0 : O_EXCL),
		  0644);
	if (fd < 0)
		return -hie_io;
	s->created = 1;
	err = write_all(fd, s->buf, s->len);
	if (close(fd) < 0)
		err = -1;
	s->len = 0;
	return err ? -hie_io : 0;
}

int hwt_import_stream_write(struct import *im, struct istream *s, const void *data, size_t len)
{
	if (!len)
		return 0;
	if (hwt_import_grow(im, (void **)&s->buf, &s->cap, s->len + len, 1))
		return -hie_nomem;
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	s->bytes += len;
	im->stats.trace_bytes += len;
	return s->len >= STREAM_FLUSH ? stream_flush(im, s) : 0;
}

/* ----- The header ------------------------------------------------------- */

/* A key of hwt's section (the bundle hwt export came from), or NULL. */
static const char *note_key(const struct import *im, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < im->note.nkeys; i++)
		if (!strncmp(im->note.keys[i], key, n) && im->note.keys[i][n] == '=')
			return im->note.keys[i] + n + 1;
	return NULL;
}

/* The recorded command: hwt's section, else what perf record ran (after --). */
static char *recorded_command(const struct import *im)
{
	const char *const *argv;
	size_t argc = 0, from = 0;
	const char *c = note_key(im, "command");

	if (c)
		return strdup(c);
	argv = hwt_perf_feature_cmdline(im->reader, &argc);
	if (!argv || !argc)
		return strdup("");
	for (size_t i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			from = i + 1;
			break;
		}
	if (from >= argc)
		from = 0;
	return hwt_bundle_quote_argv((int)(argc - from), (char *const *)(argv + from));
}

int hwt_import_bundle_create(struct import *im)
{
	const struct ipt_config *c = &im->pt;
	const char *cpuid = hwt_perf_feature_string(im->reader, HWT_PERF_FEAT_CPUID);
	const char *start = note_key(im, "start");
	char keys[13][128], *command;
	const char *list[14];
	size_t n = 0;
	int err;

	if (start)
		snprintf(keys[n++], sizeof(keys[0]), "start=%s", start);
	else {
		struct stat st;

		/* perf.data says when it was written; the recording ended then. */
		if (strcmp(im->perf_path, "-") && stat(im->perf_path, &st) == 0)
			snprintf(keys[n++], sizeof(keys[0]), "start=%lld", (long long)st.st_mtime);
	}
	/* The trace unit's configuration, for the decoder and hwt export. */
	if (im->etm.have_info) {
		n += hwt_import_etm_keys(im, keys + n, sizeof(keys) / sizeof(keys[0]) - n);
	} else if (!im->spe.have_info) { /* SPE records need no configuration to read */
		if (cpuid)
			snprintf(keys[n++], sizeof(keys[0]), "pt_cpu=%.100s", cpuid);
		snprintf(keys[n++], sizeof(keys[0]), "pt_config=%#" PRIx64, c->config);
		snprintf(keys[n++], sizeof(keys[0]), "pt_ret_compression=%d", c->retcomp);
		snprintf(keys[n++], sizeof(keys[0]), "pt_kernel=%d", !c->exclude_kernel);
		snprintf(keys[n++], sizeof(keys[0]), "pt_tsc=%d", c->tsc);
		snprintf(keys[n++], sizeof(keys[0]), "pt_cyc=%d", c->cyc);
		snprintf(keys[n++], sizeof(keys[0]), "pt_mtc=%d", c->mtc);
		if (c->mtc)
			snprintf(keys[n++], sizeof(keys[0]), "pt_mtc_freq=%u", c->mtc_freq);
		if (c->ctc_n && c->ctc_d)
			snprintf(keys[n++], sizeof(keys[0]), "pt_tsc_ctc=%" PRIu32 "/%" PRIu32, c->ctc_n,
				 c->ctc_d);
		if (c->nom_freq)
			snprintf(keys[n++], sizeof(keys[0]), "pt_nom_freq=%" PRIu32, c->nom_freq);
	}
	for (size_t i = 0; i < n; i++)
		list[i] = keys[i];
	list[n] = NULL;
	command = recorded_command(im);
	if (!command)
		return -hie_nomem;
	err = hwt_bundle_create_keys(im->dir, "perf", "tsc", command, list);
	free(command);
	if (err == -hbe_exists)
		return -hie_exists;
	if (err == -hbe_nomem)
		return -hie_nomem;
	return err ? -hie_io : 0;
}

/* ----- Sideband files and the summary ----------------------------------- */

static int write_image(struct import *im, struct iimage *g)
{
	const char *path = g->path ? g->path : g->comm ? g->comm : "";
	size_t plen, size;
	struct hwt_record_process *start;
	char *file;
	int fd, err;

	/* What hwt's section says of it, when it came from a bundle. */
	for (size_t i = 0; i < im->note.nprocs; i++)
		if (im->note.procs[i].pid == g->pid && im->note.procs[i].time == g->start) {
			path = im->note.procs[i].path;
			g->ppid = im->note.procs[i].ppid;
		}
	plen = strlen(path) + 1;
	size = hwt_record_align((uint32_t)(sizeof(*start) + 2 * plen));
	start = calloc(1, size);
	file = malloc(strlen(im->dir) + 64);
	if (!start || !file) {
		free(start);
		free(file);
		return -hie_nomem;
	}
	start->hdr.magic = HWT_RECORD_MAGIC;
	start->hdr.type = HWT_RECORD_PROCESS_START;
	start->hdr.size = (uint32_t)size;
	start->hdr.time = g->start;
	start->hdr.pid = start->hdr.tid = g->pid;
	start->ppid = g->ppid;
	start->argc = 1;
	start->generation = g->generation;
	memcpy(start + 1, path, plen);
	memcpy((char *)(start + 1) + plen, path, plen);
	hwt_record_seal(&start->hdr);
	sprintf(file, "%s/sideband/%" PRIu32 ".%" PRIu32 ".sb", im->dir, g->pid, g->generation);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	err = fd < 0 || write_all(fd, (const uint8_t *)start, size) ||
	      write_all(fd, g->records, g->len);
	if (fd >= 0 && close(fd) < 0)
		err = 1;
	free(start);
	free(file);
	return err ? -hie_io : 0;
}

/* A process image the selection leaves out: an UNTRACED record, its streams removed. */
static int write_untraced(struct import *im, struct iimage *g, const char *path,
			  const char *reason)
{
	uint8_t buf[HWT_RECORD_MAX_SIZE];
	uint32_t size = hwt_record_untraced_build(buf, sizeof(buf), g->ppid, 0, path, 4096,
						  reason, 512);
	struct hwt_record_header *h = (void *)buf;
	char *file = malloc(strlen(im->dir) + 32);
	int fd, err;

	if (!file)
		return -hie_nomem;
	if (!size) {
		free(file);
		return -hie_internal;
	}
	h->time = g->start;
	h->pid = h->tid = g->pid;
	hwt_record_seal(h);
	sprintf(file, "%s/sideband/untraced.sb", im->dir);
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	err = fd < 0 || write_all(fd, buf, size);
	if (fd >= 0 && close(fd) < 0)
		err = 1;
	free(file);
	for (size_t k = 0; k < im->nstreams; k++) {
		struct istream *s = im->streams[k];

		if (s->image != g || !s->bytes)
			continue;
		im->stats.untraced_bytes += s->bytes;
		im->stats.trace_bytes -= s->bytes;
		if (s->path)
			unlink(s->path);
		s->bytes = 0;
	}
	im->stats.untraced++;
	return err ? -hie_io : 0;
}

int hwt_import_bundle_finish(struct import *im)
{
	int err = 0;

	for (size_t i = 0; i < im->nstreams && !err; i++)
		err = stream_flush(im, im->streams[i]);
	for (size_t i = 0; i < im->nimages && !err; i++) {
		struct iimage *g = im->images[i];
		const char *reason = NULL;
		int traced = g->nmmaps > 0;

		for (size_t k = 0; k < im->nstreams && !traced; k++)
			traced = im->streams[k]->image == g && im->streams[k]->bytes;
		/* An image perf saw only by name (its comm before an exec) is left out. */
		if (!traced)
			continue;
		if (im->opt && im->opt->select && g->path &&
		    !im->opt->select(im->opt->select_context, g->path, &reason)) {
			err = write_untraced(im, g, g->path, reason ? reason : "not selected");
			continue;
		}
		err = write_image(im, g);
		im->stats.images++;
	}
	for (size_t i = 0; i < im->nstreams; i++)
		if (im->streams[i]->bytes)
			im->stats.streams++;
	if (im->untraced_lost)
		hwt_import_warn(im, "%" PRIu64 " losses happened before any process was seen",
				im->untraced_lost);
	if (!err) {
		int32_t status = 0;
		const char *s = note_key(im, "summary.exit_status");

		if (s)
			status = (int32_t)strtol(s, NULL, 10);
		err = hwt_bundle_write_summary(im->dir, status) ? -hie_io : 0;
	}
	return err;
}
