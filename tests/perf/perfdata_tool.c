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
 *   perfdata_tool cs-etm FILE      the cs_etm AUXTRACE_INFO as hwt's reader parses
 *                                  it, a "name value" line each in perf report
 *                                  -D's names and order, or the parse error
 *   copy options for cs_etm files (tests/perf/cs_etm_layouts.py):
 *     etm-v0         AUXTRACE_INFO in header version 0 (ETMv4 without the
 *                    register count, 7 registers)
 *     etm-ete        every CPU's trace unit an ETE (its magic number, 9
 *                    registers with TRCDEVARCH)
 *     etm-ts-source  and TS_SOURCE after them, as perf after 6.1 writes it
 *     etm-formatted  the AUX data in CoreSight frames with each CPU's trace
 *                    ID, as an ETR writes it (each AUX record after its
 *                    buffer, with the framed size and no RAW flag)
 *     spe-per-thread arm_spe: AUXTRACE_INFO's per-CPU word 0, no CPU in AUXTRACE
 *     spe-no-context arm_spe: every Context packet turned into Padding bytes
 *     etm-migrate    formatted, and each thread's trace in two CPUs' trace IDs
 *                    by turns (from one A-Sync to the next), its buffer
 *                    naming no CPU, as a thread that moves between CPUs
 *     etm-null-frame formatted, and each buffer ending in a frame of the null
 *                    ID's padding (perf 6.1 decodes a buffer's last packets
 *                    only when a frame follows them: cs_etm_layouts.py)
 *     etm-bad-magic, etm-cut, etm-version3, etm-cpus: damaged AUXTRACE_INFO
 *
 * Exits 1 when the file does not read to its end, after printing the error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_formatter.h"
#include "hwt_perf_cs_etm.h"
#include "hwt_perf_intel_pt.h"
#include "hwt_perfdata.h"
#include "spe_packet.h"

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

static void print_warning(void *context, const char *message)
{
	(void)context;
	fprintf(stderr, "warning: %s\n", message);
}

static int open_reader(struct hwt_perf_reader **r, const char *path)
{
	int err;

	*r = hwt_perf_reader_alloc();
	if (!*r)
		return -1;
	hwt_perf_reader_set_warn(*r, &(struct hwt_warn_sink){ print_warning, NULL });
	err = hwt_perf_reader_open(*r, path);
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
#define ETM_V0 0x10000000u
#define ETM_ETE 0x08000000u
#define ETM_FORMATTED 0x04000000u
#define ETM_BAD_MAGIC 0x02000000u
#define ETM_CUT 0x01000000u
#define ETM_VERSION3 0x00800000u
#define ETM_CPUS 0x00400000u
#define ETM_TS_SOURCE 0x00200000u
#define ETM_MIGRATE 0x00100000u
#define ETM_NULL_FRAME 0x00080000u
/* arm_spe: per-thread buffers (perf record --per-thread); Context packets
   turned into Padding (a kernel that does not write CONTEXTIDR_EL1). */
#define SPE_PER_THREAD 0x00040000u
#define SPE_NO_CONTEXT 0x00020000u
#define SPE_FLAGS (SPE_PER_THREAD | SPE_NO_CONTEXT)
#define ETM_FLAGS (ETM_V0 | ETM_ETE | ETM_FORMATTED | ETM_BAD_MAGIC | ETM_CUT | ETM_VERSION3 | \
		   ETM_CPUS | ETM_TS_SOURCE | ETM_MIGRATE | ETM_NULL_FRAME)

/* perf report -D's names of an ETMv4 / ETE block's registers, in order. */
static void print_cs_etm(const struct hwt_perf_cs_etm_info *info)
{
	printf("Header version %" PRIu64 "\n", info->version);
	printf("PMU type/num cpus %" PRIx64 "\n", (uint64_t)info->pmu_type << 32 | info->ncpus);
	printf("Snapshot %" PRIu64 "\n", info->snapshot);
	for (uint32_t i = 0; i < info->ncpus; i++) {
		const struct hwt_perf_cs_etm_cpu *c = &info->cpus[i];

		printf("Magic number %s\n", c->kind == HWT_CS_ETE ? "5050505050505050" :
		       c->kind == HWT_CS_ETMV4 ? "4040404040404040" : "3030303030303030");
		printf("CPU %" PRIx64 "\n", c->cpu);
		if (info->version)
			printf("NR_TRC_PARAMS %zx\n", c->nregs);
		printf("TRCCONFIGR %" PRIx64 "\n", c->trcconfigr);
		printf("TRCTRACEIDR %" PRIx64 "\n", c->trctraceidr);
		printf("TRCIDR0 %" PRIx64 "\n", c->trcidr0);
		printf("TRCIDR1 %" PRIx64 "\n", c->trcidr1);
		printf("TRCIDR2 %" PRIx64 "\n", c->trcidr2);
		printf("TRCIDR8 %" PRIx64 "\n", c->trcidr8);
		printf("TRCAUTHSTATUS %" PRIx64 "\n", c->trcauthstatus);
		if (c->kind == HWT_CS_ETE)
			printf("TRCDEVARCH %" PRIx64 "\n", c->trcdevarch);
		if (c->ts_source != UINT64_MAX)
			printf("TS_SOURCE %" PRIx64 "\n", c->ts_source);
	}
}

static int cs_etm(const char *path)
{
	struct hwt_perf_reader *r = hwt_perf_reader_alloc();
	struct hwt_perf_record rec;
	int err;

	if (!r || hwt_perf_reader_open(r, path)) {
		fprintf(stderr, "error: %s\n", r ? hwt_perf_reader_error(r) : "out of memory");
		hwt_perf_reader_free(r);
		return 1;
	}
	while (!(err = hwt_perf_reader_next(r, &rec))) {
		struct hwt_perf_cs_etm_info info;
		char error[256];

		if (rec.type != HWT_PERF_RECORD_AUXTRACE_INFO ||
		    rec.u.auxtrace_info.type != HWT_PERF_AUXTRACE_CS_ETM)
			continue;
		err = hwt_perf_cs_etm_parse(rec.u.auxtrace_info.priv, rec.u.auxtrace_info.npriv,
					    &info, error, sizeof(error));
		hwt_perf_reader_free(r);
		if (err) {
			printf("error: %s\n", error);
			return 1;
		}
		print_cs_etm(&info);
		hwt_perf_cs_etm_info_free(&info);
		return 0;
	}
	hwt_perf_reader_free(r);
	fprintf(stderr, "error: no cs_etm AUXTRACE_INFO\n");
	return 1;
}

/* The cs_etm AUXTRACE_INFO of rec changed as flags say, into priv. */
static void change_cs_etm(struct hwt_perf_record *rec, unsigned flags, uint64_t **priv,
			  struct hwt_perf_cs_etm_info *keep)
{
	struct hwt_perf_cs_etm_info info;
	size_t n;

	if (hwt_perf_cs_etm_parse(rec->u.auxtrace_info.priv, rec->u.auxtrace_info.npriv, &info,
				  NULL, 0))
		return;
	if (flags & ETM_V0)
		info.version = 0;
	for (uint32_t i = 0; i < info.ncpus && (flags & ETM_TS_SOURCE); i++)
		info.cpus[i].ts_source = 1;
	for (uint32_t i = 0; i < info.ncpus && (flags & ETM_ETE); i++) {
		info.cpus[i].kind = HWT_CS_ETE;
		info.cpus[i].trcdevarch = 0x47705a13; /* ETE's TRCDEVARCH: Arm, ETE, v1 */
	}
	if (hwt_perf_cs_etm_build(&info, priv, &n)) {
		hwt_perf_cs_etm_info_free(&info);
		return;
	}
	if (flags & ETM_BAD_MAGIC)
		(*priv)[HWT_CS_ETM_HDR_WORDS] = 0x4141414141414141ull;
	if (flags & ETM_CUT)
		n -= 3;
	if (flags & ETM_VERSION3)
		(*priv)[HWT_CS_ETM_HDR_VERSION] = 3;
	if (flags & ETM_CPUS)
		(*priv)[HWT_CS_ETM_HDR_PMU_TYPE_CPUS] += 1000;
	rec->u.auxtrace_info.priv = *priv;
	rec->u.auxtrace_info.npriv = n;
	*keep = info;
}

/* Where the next A-Sync (11 zero bytes and 0x80) after from starts, or size. */
static size_t next_async(const uint8_t *p, size_t from, size_t size)
{
	for (size_t i = from; i + 12 <= size; i++)
		if (p[i + 11] == 0x80 && !memcmp(p + i, "\0\0\0\0\0\0\0\0\0\0\0", 11))
			return i;
	return size;
}

/*
 * An AUXTRACE buffer's data in frames of its CPU's trace ID (malloc'd,
 * *size). migrate: as if the thread ran on two CPUs by turns, each stretch
 * from an A-Sync to the next in the other CPU's trace ID. null_frame: and a
 * frame of the null ID's padding after the trace.
 */
static uint8_t *frame_aux(const struct hwt_perf_cs_etm_info *info, struct hwt_perf_record *rec,
			  size_t *size, int migrate, int null_frame)
{
	size_t cap = (size_t)rec->u.auxtrace.data_size * 2 + 64 + HWT_CS_FRAME_SIZE;
	uint8_t *out = malloc(cap);
	struct hwt_cs_formatter fmt;
	unsigned id = 0x10;

	if (!out)
		return NULL;
	for (uint32_t i = 0; i < info->ncpus; i++)
		if (info->cpus[i].cpu == rec->u.auxtrace.cpu)
			id = (unsigned)info->cpus[i].trctraceidr;
	hwt_cs_formatter_init(&fmt, out, cap);
	if (!migrate) {
		hwt_cs_formatter_write(&fmt, id, rec->u.auxtrace.data,
				       (size_t)rec->u.auxtrace.data_size);
	} else {
		const uint8_t *d = rec->u.auxtrace.data;
		size_t n = (size_t)rec->u.auxtrace.data_size, at = 0, turn = 0;
		unsigned other = (unsigned)info->cpus[info->cpus[0].trctraceidr == id &&
						       info->ncpus > 1].trctraceidr;

		while (at < n) {
			size_t end = next_async(d, at + 1, n);

			hwt_cs_formatter_write(&fmt, turn++ % 2 ? other : id, d + at, end - at);
			at = end;
		}
	}
	hwt_cs_formatter_flush(&fmt);
	if (null_frame) {
		memset(out + fmt.pos, 0, HWT_CS_FRAME_SIZE);
		out[fmt.pos] = 0x01; /* ID 0 in byte 0: the rest is no source's data */
		fmt.pos += HWT_CS_FRAME_SIZE;
	}
	*size = fmt.pos;
	return out;
}
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
	unsigned etm = flags & ETM_FLAGS, spe = flags & SPE_FLAGS;
	uint8_t *spe_data = NULL;
	uint64_t priv[64], *etm_priv = NULL;
	struct hwt_perf_cs_etm_info etm_info = { 0 };
	uint64_t etm_offset[256] = { 0 };
	/*
	 * Formatted: the AUX records not yet met by their CPU's AUXTRACE
	 * data, held to be written after it with the framed size.
	 */
	static struct hwt_perf_record held[64];
	size_t nheld = 0, emit = SIZE_MAX;
	uint8_t *framed = NULL;
	struct hwt_perf_reader *r;
	struct hwt_perf_writer *w = hwt_perf_writer_alloc();
	struct hwt_perf_record rec;
	int err, started = 0, status = 0;

	if (open_reader(&r, in) || !w) {
		hwt_perf_reader_free(r);
		hwt_perf_writer_free(w);
		return 1;
	}
	flags &= ~(NO_HW_INDEX | SNAPSHOT | SNAPSHOT_GAPS | ETM_FLAGS | SPE_FLAGS);
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
		if (etm && rec.type == HWT_PERF_RECORD_AUXTRACE_INFO &&
		    rec.u.auxtrace_info.type == HWT_PERF_AUXTRACE_CS_ETM)
			change_cs_etm(&rec, etm, &etm_priv, &etm_info);
		if ((spe & SPE_PER_THREAD) && rec.type == HWT_PERF_RECORD_AUXTRACE_INFO &&
		    rec.u.auxtrace_info.type == HWT_PERF_AUXTRACE_ARM_SPE &&
		    rec.u.auxtrace_info.npriv == HWT_PERF_ARM_SPE_INFO_WORDS) {
			memcpy(priv, rec.u.auxtrace_info.priv, sizeof(uint64_t) * 2);
			priv[HWT_PERF_ARM_SPE_PER_CPU_MMAPS] = 0;
			rec.u.auxtrace_info.priv = priv;
		}
		if ((spe & SPE_PER_THREAD) && rec.type == HWT_PERF_RECORD_AUXTRACE)
			rec.u.auxtrace.cpu = UINT32_MAX;
		if ((spe & SPE_NO_CONTEXT) && rec.type == HWT_PERF_RECORD_AUXTRACE &&
		    rec.u.auxtrace.data_size) {
			struct hwt_spe_packet pk;
			size_t at = 0, len = (size_t)rec.u.auxtrace.data_size;
			int k;

			free(spe_data);
			spe_data = malloc(len);
			if (!spe_data) {
				status = 1;
				break;
			}
			memcpy(spe_data, rec.u.auxtrace.data, len);
			for (; at < len; at += k > 0 ? (size_t)k : 1u) {
				k = hwt_spe_packet_decode(spe_data + at, len - at, &pk);
				if (k > 0 && pk.kind == HWT_SPE_CONTEXT)
					memset(spe_data + at, 0, (size_t)k);
			}
			rec.u.auxtrace.data = spe_data;
		}
		if (etm & (ETM_MIGRATE | ETM_NULL_FRAME))
			etm |= ETM_FORMATTED;
		if ((etm & ETM_FORMATTED) && rec.type == PERF_RECORD_AUX) {
			if (nheld < 64)
				held[nheld++] = rec; /* its fields, written again below */
			continue;
		}
		if ((etm & ETM_FORMATTED) && rec.type == HWT_PERF_RECORD_AUXTRACE &&
		    rec.u.auxtrace.data_size == rec.u.auxtrace.size) {
			size_t size;

			emit = SIZE_MAX;
			for (size_t i = 0; i < nheld && emit == SIZE_MAX; i++)
				if (held[i].sample.cpu == rec.u.auxtrace.cpu &&
				    held[i].u.aux.size <= rec.u.auxtrace.data_size)
					emit = i;
			/* The trace without perf's padding to 8 bytes. */
			if (emit != SIZE_MAX)
				rec.u.auxtrace.data_size = held[emit].u.aux.size;
			free(framed);
			framed = frame_aux(&etm_info, &rec, &size, !!(etm & ETM_MIGRATE),
					   !!(etm & ETM_NULL_FRAME));
			/* perf record --per-thread names no CPU. */
			if (etm & ETM_MIGRATE)
				rec.u.auxtrace.cpu = UINT32_MAX;
			if (!framed) {
				status = 1;
				break;
			}
			rec.u.auxtrace.data = framed;
			rec.u.auxtrace.data_size = rec.u.auxtrace.size = size;
			rec.u.auxtrace.offset = etm_offset[rec.u.auxtrace.idx];
			etm_offset[rec.u.auxtrace.idx] += size;
		}
		if (snapshot && rec.type == HWT_PERF_RECORD_AUXTRACE &&
		    rec.u.auxtrace.data_size == rec.u.auxtrace.size)
			err = write_snapshots(w, &rec, !!(snapshot & SNAPSHOT_GAPS));
		else
			err = n ? hwt_perf_writer_write_raw(w, sample, n) : hwt_perf_writer_write(w, &rec);
		if (!err && emit != SIZE_MAX) {
			/* Its AUX record: the framed buffer, not raw (no RAW flag). */
			struct hwt_perf_record *aux = &held[emit];

			aux->raw = NULL; /* the reader's bytes of it are gone */
			aux->u.aux.offset = rec.u.auxtrace.offset;
			aux->u.aux.size = rec.u.auxtrace.size;
			aux->u.aux.flags &= ~(uint64_t)HWT_PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW;
			err = hwt_perf_writer_write(w, aux);
			memmove(&held[emit], &held[emit + 1], (--nheld - emit) * sizeof(held[0]));
			emit = SIZE_MAX;
		}
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
	free(etm_priv);
	free(framed);
	free(spe_data);
	hwt_perf_cs_etm_info_free(&etm_info);
	return status;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "header"))
		return header(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "cs-etm"))
		return cs_etm(argv[2]);
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
			else if (!strcmp(argv[i], "etm-v0"))
				flags |= ETM_V0;
			else if (!strcmp(argv[i], "etm-ete"))
				flags |= ETM_ETE;
			else if (!strcmp(argv[i], "etm-formatted"))
				flags |= ETM_FORMATTED;
			else if (!strcmp(argv[i], "etm-bad-magic"))
				flags |= ETM_BAD_MAGIC;
			else if (!strcmp(argv[i], "etm-cut"))
				flags |= ETM_CUT;
			else if (!strcmp(argv[i], "etm-version3"))
				flags |= ETM_VERSION3;
			else if (!strcmp(argv[i], "etm-ts-source"))
				flags |= ETM_TS_SOURCE;
			else if (!strcmp(argv[i], "etm-migrate"))
				flags |= ETM_MIGRATE;
			else if (!strcmp(argv[i], "etm-null-frame"))
				flags |= ETM_NULL_FRAME;
			else if (!strcmp(argv[i], "etm-cpus"))
				flags |= ETM_CPUS;
			else if (!strcmp(argv[i], "spe-per-thread"))
				flags |= SPE_PER_THREAD;
			else if (!strcmp(argv[i], "spe-no-context"))
				flags |= SPE_NO_CONTEXT;
		}
		return copy(argv[2], argv[3], flags);
	}
	fprintf(stderr, "usage: perfdata_tool dump|header|cs-etm FILE | copy IN OUT [pipe] [compress] [no-hw-index] [snapshot|snapshot-gaps] [etm-...] [spe-...]\n");
	return 2;
}
