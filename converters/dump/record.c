/* Printing one sideband record as one line. */
#include "hwt_dump.h"
#include "hwt_bundle.h"

#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

/* Prints s double-quoted with C escapes. */
static void hwt_dump_quoted(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c < 0x20 || c == 0x7f) {
			fputs("\\x", out);
			fputc(hex[c >> 4], out);
			fputc(hex[c & 15], out);
		} else {
			fputc(c, out);
		}
	}
	fputc('"', out);
}

static void print_signal(FILE *out, int signo)
{
	const char *name = signo > 0 ? sigabbrev_np(signo) : NULL;

	if (name)
		fprintf(out, "SIG%s", name);
	else
		fprintf(out, "signal %d", signo);
}

static void print_status(FILE *out, int32_t status)
{
	int s = (int)status;

	fprintf(out, "status=0x%" PRIx32, (uint32_t)status);
	if (WIFEXITED(s)) {
		fprintf(out, " (exited %d)", WEXITSTATUS(s));
	} else if (WIFSIGNALED(s)) {
		fputs(" (killed by ", out);
		print_signal(out, WTERMSIG(s));
		fputs(WCOREDUMP(s) ? ", core dumped)" : ")", out);
	}
}

static void print_prot(FILE *out, uint32_t prot)
{
	fprintf(out, "prot=%c%c%c", prot & HWT_PROT_READ ? 'r' : '-',
		prot & HWT_PROT_WRITE ? 'w' : '-', prot & HWT_PROT_EXEC ? 'x' : '-');
	prot &= ~(HWT_PROT_READ | HWT_PROT_WRITE | HWT_PROT_EXEC);
	if (prot)
		fprintf(out, "+0x%" PRIx32, prot);
}

static const char *lost_reason(uint32_t reason)
{
	switch (reason) {
	case HWT_LOST_TRACE_WRITE:  return "trace-write";
	case HWT_LOST_RECORD_QUEUE: return "record-queue";
	case HWT_LOST_BUFFER_WRAP:  return "buffer-wrap";
	case HWT_LOST_IMAGE:        return "image";
	}
	return NULL;
}

static void print_argv(FILE *out, const struct hwt_sideband_record *rec)
{
	uint32_t i;

	fputs(" argv=[", out);
	for (i = 0; i < rec->argc; i++) {
		if (i)
			fputs(", ", out);
		hwt_dump_quoted(out, rec->argv[i]);
	}
	fputc(']', out);
}

void hwt_dump_record(FILE *out, const struct hwt_sideband_record *rec)
{
	const struct hwt_record_header *hdr = rec->hdr;
	uint16_t flags = hdr->flags;
	uint32_t i;

	fprintf(out, "@%" PRIu64 " t=%" PRIu64 " %" PRIu32 "/%" PRIu32 " ",
		rec->offset, hdr->time, hdr->pid, hdr->tid);
	if (!rec->known) {
		fprintf(out, "unknown type=%" PRIu16 " size=%" PRIu32 " (skipped)",
			hdr->type, hdr->size);
		return;
	}
	fputs(hwt_record_type_name(hdr->type), out);

	switch (hdr->type) {
	case HWT_RECORD_PROCESS_START:
	case HWT_RECORD_EXEC:
		fprintf(out, " ppid=%" PRIu32 " generation=%" PRIu32 " path=",
			rec->u.process->ppid, rec->u.process->generation);
		hwt_dump_quoted(out, rec->path);
		print_argv(out, rec);
		if (hdr->type == HWT_RECORD_EXEC && (flags & HWT_EXEC_FAILED)) {
			fputs(" failed", out);
			flags &= (uint16_t)~HWT_EXEC_FAILED;
		}
		break;
	case HWT_RECORD_MMAP: {
		const struct hwt_record_mmap *m = rec->u.mmap;

		fprintf(out, " addr=0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64 " ",
			m->addr, m->addr + m->len, m->pgoff);
		print_prot(out, m->prot);
		fputs(" build-id=", out);
		if (!m->build_id_size)
			fputs("none", out);
		for (i = 0; i < m->build_id_size; i++)
			fprintf(out, "%02x", m->build_id[i]);
		if (flags & HWT_MMAP_VDSO)
			fputs(" vdso", out);
		if (flags & HWT_MMAP_ANON)
			fputs(" anon", out);
		if (flags & HWT_MMAP_TRACE_UNIT)
			fputs(" trace-unit", out);
		if (flags & HWT_MMAP_FILTERED)
			fputs(" filtered", out);
		flags &= (uint16_t)~(HWT_MMAP_VDSO | HWT_MMAP_ANON | HWT_MMAP_TRACE_UNIT |
				     HWT_MMAP_FILTERED);
		fputs(" path=", out);
		hwt_dump_quoted(out, rec->path);
		break;
	}
	case HWT_RECORD_MUNMAP:
		fprintf(out, " addr=0x%" PRIx64 "-0x%" PRIx64, rec->u.munmap->addr,
			rec->u.munmap->addr + rec->u.munmap->len);
		break;
	case HWT_RECORD_THREAD_CREATE:
		fprintf(out, " child_tid=%" PRIu32, rec->u.thread->child_tid);
		break;
	case HWT_RECORD_THREAD_EXIT:
		break;
	case HWT_RECORD_FORK:
		fprintf(out, " child_pid=%" PRIu32, rec->u.fork->child_pid);
		break;
	case HWT_RECORD_PROCESS_EXIT:
		fputc(' ', out);
		print_status(out, rec->u.exit->status);
		break;
	case HWT_RECORD_LOST: {
		const char *why = lost_reason(rec->u.lost->reason);

		if (why)
			fprintf(out, " reason=%s", why);
		else
			fprintf(out, " reason=%" PRIu32, rec->u.lost->reason);
		fprintf(out, " records=%" PRIu32 " bytes=%" PRIu64, rec->u.lost->records,
			rec->u.lost->bytes);
		break;
	}
	case HWT_RECORD_SWITCH:
		fprintf(out, " cpu=%" PRIu32 " %s", rec->u.sw->cpu, rec->u.sw->in ? "in" : "out");
		break;
	case HWT_RECORD_BUFFER:
		fprintf(out, " buffer=%" PRIu32 " offset=0x%" PRIx64, rec->u.buffer->buffer,
			rec->u.buffer->offset);
		break;
	case HWT_RECORD_SIGNAL:
		fprintf(out, " signo=%" PRId32 " (", rec->u.signal->signo);
		print_signal(out, rec->u.signal->signo);
		fprintf(out, ") ip=0x%" PRIx64, rec->u.signal->ip);
		break;
	case HWT_RECORD_UNTRACED:
		fprintf(out, " ppid=%" PRIu32 " path=", rec->u.untraced->ppid);
		hwt_dump_quoted(out, rec->path);
		fputs(" reason=", out);
		hwt_dump_quoted(out, rec->reason);
		break;
	}
	if (flags)
		fprintf(out, " flags=0x%" PRIx16, flags);
}
