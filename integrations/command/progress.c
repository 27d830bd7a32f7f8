/* The decode's progress as the commands show it: one line on stderr, redrawn. */
#include <stdio.h>
#include <unistd.h>

#include "hwt_command.h"

void hwt_progress_init(struct hwt_progress *progress, enum hwt_progress_mode mode)
{
	progress->shown = mode == hwt_progress_always ||
			  (mode == hwt_progress_tty && isatty(STDERR_FILENO));
	progress->last = 0;
	progress->printed = 0;
}

void hwt_progress_print(uint64_t done, uint64_t total, void *context)
{
	struct hwt_progress *progress = context;

	if (!progress->shown || !total)
		return;
	/* Every percent, and the end. */
	if (done != total && done - progress->last < total / 100)
		return;
	progress->last = done;
	fprintf(stderr, "\rhwt: decoding %3u%% (%.1f of %.1f MB)", (unsigned)(done * 100 / total),
		done / 1e6, total / 1e6);
	progress->printed = 1;
}

void hwt_progress_end(struct hwt_progress *progress)
{
	if (progress->printed)
		fputc('\n', stderr);
	progress->printed = 0;
}
