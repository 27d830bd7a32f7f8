/*
 * hwt's own section of an exported perf.data (docs/perf.md): what
 * a trace bundle says that perf.data has no record for, as text lines that
 * `hwt import` reads back and perf skips:
 *
 *   hwt-perf 1
 *   bundle KEY=VALUE                     the bundle's header keys
 *   summary KEY=VALUE                    its summary's (exit_status)
 *   mmap PID TIME ADDR FLAGS PATH        a mapping's HWT_MMAP_* flags and the
 *                                        path the bundle names it by
 *   munmap PID TID TIME ADDR LEN
 *   exit PID TIME STATUS                 a process's exit status (waitpid style)
 *   process PID TIME PPID PATH           an image's PROCESS_START (perf knows only
 *                                        the comm; the first mapping may be ld.so)
 *
 * TIME is perf time (the MMAP2 or EXIT record's), numbers hexadecimal but
 * PID, TID, TIME and STATUS; PATH and VALUE are percent-escaped (bytes
 * below 0x21, '%' and 0x7f), so a line never breaks.
 */
#include "export_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c == '%' || c == 0x7f)
			fprintf(f, "%%%02x", c);
		else
			fputc(c, f);
	}
}

int hwt_xport_note(struct xport *x, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	const char *key, *value;

	if (!f)
		return -hxe_nomem;
	fputs("hwt-perf 1\n", f);
	for (size_t i = 0; i < hwt_bundle_key_count(x->bundle); i++) {
		if (hwt_bundle_key_at(x->bundle, i, &key, &value))
			continue;
		fprintf(f, "bundle %s=", key);
		escaped(f, value);
		fputc('\n', f);
	}
	if (hwt_bundle_summary_key(x->bundle, "exit_status"))
		fprintf(f, "summary exit_status=%s\n", hwt_bundle_summary_key(x->bundle, "exit_status"));
	for (size_t i = 0; i < x->nimages; i++) {
		const struct xport_image *im = &x->images[i];

		for (size_t r = 0; r < im->nrecs; r++) {
			const struct hwt_record_header *h = im->recs[r];
			uint64_t t = im->times[r];

			if (h->type == HWT_RECORD_MMAP) {
				const struct hwt_record_mmap *m = (const void *)h;

				if (!h->flags)
					continue;
				fprintf(f, "mmap %" PRIu32 " %" PRIu64 " %" PRIx64 " %x ", h->pid, t,
					m->addr, h->flags);
				escaped(f, (const char *)(m + 1));
				fputc('\n', f);
			} else if (h->type == HWT_RECORD_MUNMAP) {
				const struct hwt_record_munmap *m = (const void *)h;

				fprintf(f, "munmap %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIx64
					" %" PRIx64 "\n", h->pid, h->tid, t, m->addr, m->len);
			} else if (h->type == HWT_RECORD_PROCESS_START) {
				const struct hwt_record_process *p = (const void *)h;

				fprintf(f, "process %" PRIu32 " %" PRIu64 " %" PRIu32 " ", h->pid, t,
					p->ppid);
				escaped(f, (const char *)(p + 1));
				fputc('\n', f);
			} else if (h->type == HWT_RECORD_PROCESS_EXIT) {
				const struct hwt_record_exit *e = (const void *)h;

				fprintf(f, "exit %" PRIu32 " %" PRIu64 " %" PRId32 "\n", h->pid, t,
					e->status);
			}
		}
	}
	if (fclose(f))
		return -hxe_nomem;
	return 0;
}
