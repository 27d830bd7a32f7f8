/*
 * Test driver of the perf.data library (perfdata/).
 *
 *   perfdata_tool dump FILE        every record: "raw OFFSET SIZE TYPE" in file
 *                                  order, and for sideband records the line perf
 *                                  report -D prints for them ("TIME: PERF_RECORD_...")
 *   perfdata_tool copy IN OUT [pipe] [compress] [no-hw-index] [snapshot|snapshot-gaps]
 *                                  reads IN and writes every record again
 *                                  through the writer (header records rebuilt);
 *                                  no-hw-index: branch stacks without the
 *                                  hw_idx field that perf >= 5.7 writes and
 *                                  AutoFDO 0.19's reader does not know
 *                                  (google/autofdo#89; docs/perf.md);
 *                                  snapshot: as perf record -S would have
 *                                  written it (snapshot mode, AUX records
 *                                  flagged OVERWRITE, every AUXTRACE buffer
 *                                  as 2 KiB snapshots each repeating the last
 *                                  512 bytes of the one before); snapshot-gaps:
 *                                  the second of every three snapshots of a
 *                                  buffer left out (not its last)
 *   perfdata_tool header FILE      attributes and features
 *
 * Exits 1 when the file does not read to its end, after printing the error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_perf_intel_pt.h"
#include "hwt_perfdata.h"

static void prot_string(uint32_t prot, uint32_t flags, char *out)
{
	out[0] = prot & 1 ? 'r' : '-';
	out[1] = prot & 2 ? 'w' : '-';
	out[2] = prot & 4 ? 'x' : '-';
	out[3] = flags & 1 ? 's' : 'p';
	out[4] = '\0';
}

/* The text perf report -D prints after "TIME OFFSET [SIZE]: " for a record. */
static int perf_line(const struct hwt_perf_record *r, char *out, size_t size)
{
	char prot[8];

	switch (r->type) {
	case PERF_RECORD_COMM:
		snprintf(out, size, "PERF_RECORD_COMM%s: %s:%" PRIu32 "/%" PRIu32,
			 r->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "", r->u.comm.comm,
			 r->u.comm.pid, r->u.comm.tid);
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		snprintf(out, size, "PERF_RECORD_%s(%" PRIu32 ":%" PRIu32 "):(%" PRIu32 ":%" PRIu32 ")",
			 r->type == PERF_RECORD_FORK ? "FORK" : "EXIT", r->u.task.pid,
			 r->u.task.tid, r->u.task.ppid, r->u.task.ptid);
		return 1;
	case PERF_RECORD_MMAP2:
		prot_string(r->u.mmap.prot, r->u.mmap.flags, prot);
		if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			char hex[48] = "";

			for (unsigned i = 0; i < r->u.mmap.build_id_size; i++)
				sprintf(hex + 2 * i, "%02x", r->u.mmap.build_id[i]);
			snprintf(out, size, "PERF_RECORD_MMAP2 %" PRId32 "/%" PRId32 ": [%#" PRIx64
				 "(%#" PRIx64 ") @ %#" PRIx64 " %s]: %s %s", (int32_t)r->u.mmap.pid,
				 (int32_t)r->u.mmap.tid, r->u.mmap.addr, r->u.mmap.len,
				 r->u.mmap.pgoff, hex, prot, r->u.mmap.filename);
		} else {
			snprintf(out, size, "PERF_RECORD_MMAP2 %" PRId32 "/%" PRId32 ": [%#" PRIx64
				 "(%#" PRIx64 ") @ %#" PRIx64 " %02x:%02x %" PRIu64 " %" PRIu64
				 "]: %s %s", (int32_t)r->u.mmap.pid, (int32_t)r->u.mmap.tid,
				 r->u.mmap.addr, r->u.mmap.len, r->u.mmap.pgoff, r->u.mmap.maj,
				 r->u.mmap.min, r->u.mmap.ino, r->u.mmap.ino_generation, prot,
				 r->u.mmap.filename);
		}
		return 1;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		int out_ = !!(r->misc & PERF_RECORD_MISC_SWITCH_OUT);
		const char *dir = !out_ ? "IN" : r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
					  ? "OUT preempt" : "OUT";

		if (r->type == PERF_RECORD_SWITCH)
			snprintf(out, size, "PERF_RECORD_SWITCH %s", dir);
		else
			snprintf(out, size, "PERF_RECORD_SWITCH_CPU_WIDE %s %s pid/tid: %" PRId32
				 "/%" PRId32, dir, out_ ? "next" : "prev",
				 (int32_t)r->u.sw.next_prev_pid, (int32_t)r->u.sw.next_prev_tid);
		return 1;
	}
	case PERF_RECORD_ITRACE_START:
		snprintf(out, size, "PERF_RECORD_ITRACE_START pid: %" PRIu32 " tid: %" PRIu32,
			 r->u.itrace_start.pid, r->u.itrace_start.tid);
		return 1;
	case PERF_RECORD_AUX:
		snprintf(out, size, "PERF_RECORD_AUX offset: %#" PRIx64 " size: %#" PRIx64
			 " flags: %#" PRIx64, r->u.aux.offset, r->u.aux.size, r->u.aux.flags);
		return 1;
	case PERF_RECORD_LOST:
		snprintf(out, size, "PERF_RECORD_LOST lost %" PRIu64, r->u.lost.lost);
		return 1;
	default:
		return 0;
	}
}

static int open_reader(struct hwt_perf_reader **r, const char *path)
{
	int err;

	*r = hwt_perf_reader_alloc();
	if (!*r)
		return -1;
	err = hwt_perf_reader_open(*r, path);
	for (size_t i = 0; i < hwt_perf_reader_warning_count(*r); i++)
		fprintf(stderr, "warning: %s\n", hwt_perf_reader_warning_at(*r, i));
	if (err) {
		fprintf(stderr, "error: %s (%s)\n", hwt_perf_reader_error(*r), hwt_perf_errstr(err));
		return -1;
	}
	return 0;
}

static int dump(const char *path)
{
	struct hwt_perf_reader *r;
	struct hwt_perf_record rec;
	char line[1024];
	int err;

	if (open_reader(&r, path)) {
		hwt_perf_reader_free(r);
		return 1;
	}
	printf("mode %s attrs %zu\n", hwt_perf_reader_pipe_mode(r) ? "pipe" : "file",
	       hwt_perf_attr_count(r));
	while (!(err = hwt_perf_reader_next(r, &rec))) {
		printf("raw %#" PRIx64 " %#x %u%s\n", rec.offset, rec.size, rec.type,
		       rec.compressed ? " compressed" : "");
		if (rec.type == HWT_PERF_RECORD_AUXTRACE)
			printf("auxtrace size %#" PRIx64 " offset %#" PRIx64 " ref %#" PRIx64
			       " idx %" PRIu32 " tid %" PRId32 " cpu %" PRId32 " have %#" PRIx64 "\n",
			       rec.u.auxtrace.size, rec.u.auxtrace.offset, rec.u.auxtrace.reference,
			       rec.u.auxtrace.idx, (int32_t)rec.u.auxtrace.tid,
			       (int32_t)rec.u.auxtrace.cpu, rec.u.auxtrace.data_size);
		if (perf_line(&rec, line, sizeof(line)))
			printf("event %" PRIu64 " %s\n",
			       rec.sample.fields & HWT_PERF_SID_TIME ? rec.sample.time : 0, line);
	}
	for (size_t i = 0; i < hwt_perf_reader_warning_count(r); i++)
		fprintf(stderr, "warning: %s\n", hwt_perf_reader_warning_at(r, i));
	if (err != -hpf_eos) {
		printf("error %s\n", hwt_perf_reader_error(r));
		fprintf(stderr, "error: %s\n", hwt_perf_reader_error(r));
	}
	printf("records %" PRIu64 "\n", hwt_perf_reader_count(r));
	hwt_perf_reader_free(r);
	return err == -hpf_eos ? 0 : 1;
}

static int header(const char *path)
{
	struct hwt_perf_reader *r;
	struct hwt_perf_record rec;
	uint32_t online, avail;
	size_t argc;
	const char *const *argv;
	static const unsigned strings[] = { HWT_PERF_FEAT_HOSTNAME, HWT_PERF_FEAT_OSRELEASE,
					    HWT_PERF_FEAT_VERSION, HWT_PERF_FEAT_ARCH,
					    HWT_PERF_FEAT_CPUDESC, HWT_PERF_FEAT_CPUID };

	if (open_reader(&r, path)) {
		hwt_perf_reader_free(r);
		return 1;
	}
	/* Pipe mode: the header is in the records. */
	if (hwt_perf_reader_pipe_mode(r))
		while (!hwt_perf_reader_next(r, &rec))
			;
	for (size_t i = 0; i < hwt_perf_attr_count(r); i++) {
		const struct hwt_perf_attr *a = hwt_perf_attr_at(r, i);

		printf("attr %zu type %u config %#llx sample_type %#llx ids %zu\n", i, a->attr.type,
		       (unsigned long long)a->attr.config, (unsigned long long)a->attr.sample_type,
		       a->nids);
	}
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		const char *s = hwt_perf_feature_string(r, strings[i]);

		if (s)
			printf("feature %u %s\n", strings[i], s);
	}
	if (!hwt_perf_feature_nrcpus(r, &online, &avail))
		printf("nrcpus %u %u\n", online, avail);
	argv = hwt_perf_feature_cmdline(r, &argc);
	for (size_t i = 0; argv && i < argc; i++)
		printf("cmdline %s\n", argv[i]);
	for (size_t i = 0; i < hwt_perf_build_id_count(r); i++) {
		const struct hwt_perf_build_id *b = hwt_perf_build_id_at(r, i);

		printf("build-id %d ", b->pid);
		for (unsigned k = 0; k < b->size; k++)
			printf("%02x", b->build_id[k]);
		printf(" %s\n", b->filename);
	}
	hwt_perf_reader_free(r);
	return 0;
}

#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX (1u << 17)
#endif
#define NO_HW_INDEX 0x80000000u
#define SNAPSHOT 0x40000000u
#define SNAPSHOT_GAPS 0x20000000u
#define SNAPSHOT_PIECE 2048u
#define SNAPSHOT_OVERLAP 512u

/* An AUXTRACE buffer as snapshots that overlap (some left out with gaps). */
static int write_snapshots(struct hwt_perf_writer *w, const struct hwt_perf_record *rec, int gaps)
{
	const uint64_t size = rec->u.auxtrace.data_size;
	unsigned i = 0;

	for (uint64_t at = 0; at < size; at += SNAPSHOT_PIECE, i++) {
		struct hwt_perf_record piece = *rec;
		uint64_t from = at >= SNAPSHOT_OVERLAP ? at - SNAPSHOT_OVERLAP : 0;
		uint64_t to = at + SNAPSHOT_PIECE < size ? at + SNAPSHOT_PIECE : size;
		int err;

		if (gaps && i % 3 == 1 && to < size)
			continue;
		piece.u.auxtrace.offset = rec->u.auxtrace.offset + from;
		piece.u.auxtrace.size = piece.u.auxtrace.data_size = to - from;
		piece.u.auxtrace.data = rec->u.auxtrace.data + from;
		err = hwt_perf_writer_write(w, &piece);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A SAMPLE without its branch stack's hw_idx (the fields before the branch
 * stack walked in perf's order) into out; its size, or 0 to keep it.
 */
static size_t drop_hw_index(const struct hwt_perf_reader *r, const struct hwt_perf_record *rec,
			    uint8_t *out)
{
	const uint8_t *p = rec->raw;
	const struct hwt_perf_attr *a;
	size_t at = 8, size = rec->size;
	uint64_t st, id, n;

	if (rec->type != PERF_RECORD_SAMPLE || size < 16 || size > 65535)
		return 0;
	a = hwt_perf_attr_count(r) == 1 ? hwt_perf_attr_at(r, 0) : NULL;
	st = a ? a->attr.sample_type : 0;
	if (!a) {
		memcpy(&id, p + 8, 8); /* IDENTIFIER first, as perf inject writes */
		a = hwt_perf_attr_find(r, id);
		if (!a)
			return 0;
		st = a->attr.sample_type;
	}
	if (!(a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) ||
	    !(st & PERF_SAMPLE_BRANCH_STACK) || (st & PERF_SAMPLE_READ))
		return 0;
	at += 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
						     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
						     PERF_SAMPLE_PERIOD));
	if ((st & PERF_SAMPLE_CALLCHAIN)) {
		if (at + 8 > size)
			return 0;
		memcpy(&n, p + at, 8);
		if (n > size / 8)
			return 0;
		at += 8 + 8 * n;
	}
	if ((st & PERF_SAMPLE_RAW)) {
		uint32_t raw;

		if (at + 4 > size)
			return 0;
		memcpy(&raw, p + at, 4);
		at += 4 + raw;
	}
	if (at + 16 > size) /* nr, hw_idx */
		return 0;
	memcpy(out, p, at + 8);
	memcpy(out + at + 8, p + at + 16, size - at - 16);
	n = size - 8;
	out[6] = (uint8_t)n;
	out[7] = (uint8_t)(n >> 8);
	return size - 8;
}

static int copy(const char *in, const char *out, unsigned flags)
{
	static uint8_t sample[65536];
	unsigned no_hw_index = flags & NO_HW_INDEX, snapshot = flags & (SNAPSHOT | SNAPSHOT_GAPS);
	uint64_t priv[64];
	struct hwt_perf_reader *r;
	struct hwt_perf_writer *w = hwt_perf_writer_alloc();
	struct hwt_perf_record rec;
	int err, started = 0, status = 0;

	if (open_reader(&r, in) || !w) {
		hwt_perf_reader_free(r);
		hwt_perf_writer_free(w);
		return 1;
	}
	flags &= ~(NO_HW_INDEX | SNAPSHOT | SNAPSHOT_GAPS);
	err = hwt_perf_writer_open(w, out, flags);
	if (err) {
		fprintf(stderr, "error: %s: %s\n", out, hwt_perf_errstr(err));
		return 1;
	}
	for (;;) {
		err = hwt_perf_reader_next(r, &rec);
		if (err)
			break;
		/* Header records are rebuilt by the writer. */
		if (rec.type == HWT_PERF_RECORD_HEADER_ATTR ||
		    rec.type == HWT_PERF_RECORD_HEADER_FEATURE ||
		    rec.type == HWT_PERF_RECORD_HEADER_BUILD_ID ||
		    rec.type == HWT_PERF_RECORD_FINISHED_ROUND)
			continue;
		if (!started) {
			const void *data;
			uint64_t size;

			started = 1;
			for (size_t i = 0; i < hwt_perf_attr_count(r); i++) {
				const struct hwt_perf_attr *a = hwt_perf_attr_at(r, i);
				struct perf_event_attr attr = a->attr;

				if (no_hw_index)
					attr.branch_sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_HW_INDEX;
				if (hwt_perf_writer_add_attr(w, &attr, a->ids, a->nids))
					status = 1;
			}
			/* EVENT_DESC repeats the attributes: left out when they change. */
			for (unsigned f = 1; f < HWT_PERF_FEAT_BITS; f++)
				if (f != HWT_PERF_FEAT_BUILD_ID && f != HWT_PERF_FEAT_AUXTRACE &&
				    f != HWT_PERF_FEAT_COMPRESSED &&
				    !(no_hw_index && f == HWT_PERF_FEAT_EVENT_DESC) &&
				    !hwt_perf_feature(r, f, &data, &size))
					hwt_perf_writer_feature(w, f, data, (size_t)size);
			for (size_t i = 0; i < hwt_perf_build_id_count(r); i++) {
				const struct hwt_perf_build_id *b = hwt_perf_build_id_at(r, i);

				hwt_perf_writer_build_id(w, b->pid, b->misc, b->build_id, b->size,
							 b->filename);
			}
		}
		size_t n = no_hw_index ? drop_hw_index(r, &rec, sample) : 0;

		if (snapshot && rec.type == HWT_PERF_RECORD_AUXTRACE_INFO &&
		    rec.u.auxtrace_info.npriv > HWT_PT_INFO_SNAPSHOT_MODE &&
		    rec.u.auxtrace_info.npriv <= 64) {
			memcpy(priv, rec.u.auxtrace_info.priv, rec.u.auxtrace_info.npriv * 8);
			priv[HWT_PT_INFO_SNAPSHOT_MODE] = 1;
			rec.u.auxtrace_info.priv = priv;
		}
		if (snapshot && rec.type == PERF_RECORD_AUX)
			rec.u.aux.flags |= PERF_AUX_FLAG_OVERWRITE;
		if (snapshot && rec.type == HWT_PERF_RECORD_AUXTRACE &&
		    rec.u.auxtrace.data_size == rec.u.auxtrace.size)
			err = write_snapshots(w, &rec, !!(snapshot & SNAPSHOT_GAPS));
		else
			err = n ? hwt_perf_writer_write_raw(w, sample, n) : hwt_perf_writer_write(w, &rec);
		if (err) {
			fprintf(stderr, "error: writing a %s record: %s\n",
				hwt_perf_record_name(rec.type), hwt_perf_errstr(err));
			status = 1;
			break;
		}
	}
	if (err != -hpf_eos && !status) {
		fprintf(stderr, "error: %s\n", hwt_perf_reader_error(r));
		status = 1;
	}
	err = hwt_perf_writer_close(w);
	if (err) {
		fprintf(stderr, "error: closing %s: %s\n", out, hwt_perf_errstr(err));
		status = 1;
	}
	hwt_perf_writer_free(w);
	hwt_perf_reader_free(r);
	return status;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "header"))
		return header(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "copy")) {
		unsigned flags = 0;

		for (int i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "pipe"))
				flags |= HWT_PERF_WRITE_PIPE;
			else if (!strcmp(argv[i], "compress"))
				flags |= HWT_PERF_WRITE_COMPRESS;
			else if (!strcmp(argv[i], "no-hw-index"))
				flags |= NO_HW_INDEX;
			else if (!strcmp(argv[i], "snapshot"))
				flags |= SNAPSHOT;
			else if (!strcmp(argv[i], "snapshot-gaps"))
				flags |= SNAPSHOT_GAPS;
		}
		return copy(argv[2], argv[3], flags);
	}
	fprintf(stderr, "usage: perfdata_tool dump|header FILE | copy IN OUT [pipe] [compress] [no-hw-index] [snapshot|snapshot-gaps]\n");
	return 2;
}
