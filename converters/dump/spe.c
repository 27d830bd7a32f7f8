/*
 * `hwt dump --spe`: the records of the bundle's SPE streams, one line per
 * record, with the fields perf's arm_spe listing (perf script -D) shows:
 *
 *   spe PID.GEN-TID spe/PID.GEN-TID.spe SIZE bytes
 *     OFFSET pc=0xADDR el0 op=B-COND target=0xADDR ev=RETIRED,NOT-TAKEN tot=1 issue=0 ctx=TID ts=N
 *
 * Fields appear only when the record has them: op is OTHER, LD, ST (with
 * -SIMD for SIMD&FP registers), B (with -COND, -IND); va and pa are the
 * data addresses, xlat the translation latency, src the data source; a
 * record with address or counter packets of indices hwt does not know
 * ends with "unknown-packets". Damage is a line
 *     OFFSET error: MESSAGE (N bytes dropped from OFFSET)
 * and a hwt_diag_stream diagnostic; the listing goes on at the next record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_bundle.h"
#include "hwt_dump.h"
#include "spe_packet.h"

static const char *const event_names[] = {
	"EXCEPTION", "RETIRED", "L1D-ACCESS", "L1D-REFILL", "TLB-ACCESS", "TLB-WALK",
	"NOT-TAKEN", "MISPRED", "LLC-ACCESS", "LLC-MISS", "REMOTE", "ALIGNMENT",
};

static void print_op(FILE *out, const struct hwt_spe_record *r)
{
	switch (r->op_class) {
	case HWT_SPE_OP_BRANCH:
		fprintf(out, " op=B%s%s", r->op & HWT_SPE_OP_COND ? "-COND" : "",
			(r->op & 0xfe) == HWT_SPE_OP_BR_INDIRECT ? "-IND" : "");
		break;
	case HWT_SPE_OP_LDST:
		fprintf(out, " op=%s%s", r->op & HWT_SPE_OP_ST ? "ST" : "LD",
			(r->op & 0xfe) == 0x4 ? "-SIMD" : "");
		break;
	case HWT_SPE_OP_OTHER:
		fprintf(out, " op=OTHER%s", r->op & HWT_SPE_OP_COND ? "-COND" : "");
		break;
	default:
		fprintf(out, " op=CLASS%u", r->op_class);
	}
}

/* One record's fields, each " key=value" (no newline). */
static void hwt_dump_spe_record(FILE *out, const struct hwt_spe_record *r)
{
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC)) {
		uint64_t pc = r->addr[HWT_SPE_ADDR_PC];

		fprintf(out, " pc=0x%" PRIx64 " el%u%s", hwt_spe_addr(pc), hwt_spe_addr_el(pc),
			hwt_spe_addr_ns(pc) ? " ns" : " s");
	}
	if (r->has & HWT_SPE_HAS_OP)
		print_op(out, r);
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_TARGET))
		fprintf(out, " target=0x%" PRIx64, hwt_spe_addr(r->addr[HWT_SPE_ADDR_TARGET]));
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PREV_BR))
		fprintf(out, " prev-target=0x%" PRIx64, hwt_spe_addr(r->addr[HWT_SPE_ADDR_PREV_BR]));
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_DATA_VA))
		fprintf(out, " va=0x%" PRIx64, hwt_spe_addr(r->addr[HWT_SPE_ADDR_DATA_VA]));
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_DATA_PA))
		fprintf(out, " pa=0x%" PRIx64, (uint64_t)(r->addr[HWT_SPE_ADDR_DATA_PA] & HWT_SPE_ADDR_MASK));
	if (r->has & HWT_SPE_HAS_EVENTS) {
		const char *sep = "=";

		fputs(" ev", out);
		for (unsigned i = 0; i < 64; i++) {
			if (!(r->events & (1ull << i)))
				continue;
			if (i < sizeof(event_names) / sizeof(event_names[0]))
				fprintf(out, "%s%s", sep, event_names[i]);
			else
				fprintf(out, "%sEV%u", sep, i);
			sep = ",";
		}
		if (*sep == '=')
			fputs("=NONE", out);
	}
	if (r->has & HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_TOTAL))
		fprintf(out, " tot=%u", r->count[HWT_SPE_COUNT_TOTAL]);
	if (r->has & HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_ISSUE))
		fprintf(out, " issue=%u", r->count[HWT_SPE_COUNT_ISSUE]);
	if (r->has & HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_XLAT))
		fprintf(out, " xlat=%u", r->count[HWT_SPE_COUNT_XLAT]);
	if (r->has & HWT_SPE_HAS_SOURCE)
		fprintf(out, " src=0x%" PRIx64, r->source);
	if (r->has & HWT_SPE_HAS_CONTEXT)
		fprintf(out, " ctx%s=%" PRIu32, r->context_index ? "-el2" : "", r->context);
	if (r->has & HWT_SPE_HAS_TIMESTAMP)
		fprintf(out, " ts=%" PRIu64, r->timestamp);
	if (r->has & HWT_SPE_HAS_UNKNOWN)
		fputs(" unknown-packets", out);
}

/* The records of size bytes at begin (read from path); returns the errors found. */
static int hwt_dump_spe_records(FILE *out, struct hwt_bundle *bundle, const char *path,
				const uint8_t *begin, size_t size)
{
	struct hwt_spe_decoder d;
	struct hwt_spe_record r;
	int ret, problems = 0;

	hwt_spe_decoder_init(&d, begin, size);
	while ((ret = hwt_spe_decoder_next(&d, &r)) != 0) {
		if (ret < 0) {
			problems++;
			fprintf(out, "  0x%06zx error: %s (%zu bytes dropped from 0x%zx)\n", d.error_at,
				hwt_spe_errstr(ret), d.pos - d.lost_from, d.lost_from);
			hwt_bundle_diag_add(bundle, hwt_diag_stream, path, (int64_t)d.error_at,
					    "%s: %zu bytes dropped", hwt_spe_errstr(ret),
					    d.pos - d.lost_from);
			continue;
		}
		fprintf(out, "  0x%06zx", d.record_at);
		hwt_dump_spe_record(out, &r);
		fputc('\n', out);
	}
	return problems;
}

static void dump_one(FILE *out, struct hwt_bundle *bundle, const struct hwt_bundle_stream *s)
{
	struct stat st;
	uint8_t *map;
	int fd;

	fprintf(out, "spe %s spe/%s.spe %" PRIu64 " bytes%s\n", s->name, s->name, s->size,
		s->image < 0 ? " (no sideband)" : "");
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		hwt_bundle_diag_add(bundle, hwt_diag_io, s->path, -1, "cannot read: %s",
				    strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (st.st_size == 0) {
		close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		hwt_bundle_diag_add(bundle, hwt_diag_io, s->path, -1, "cannot map: %s",
				    strerror(errno));
		return;
	}
	hwt_dump_spe_records(out, bundle, s->path, map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
}

void hwt_dump_spe(FILE *out, struct hwt_bundle *bundle, int64_t pid)
{
	for (size_t i = 0; i < hwt_bundle_spe_count(bundle); i++) {
		const struct hwt_bundle_stream *s = hwt_bundle_spe_at(bundle, i);

		if (pid < 0 || (int64_t)s->pid == pid)
			dump_one(out, bundle, s);
	}
}
