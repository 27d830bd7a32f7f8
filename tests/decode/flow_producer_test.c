/*
 * The flow producer (converters/decode/flow_producer.c): the plumbing the
 * Intel PT (stream.c) and ETMv4 (etm_stream.c) producers share, driven as
 * they drive it, its flow handed to a consumer that keeps what it gets.
 * Checked: the stream's bytes and stats, the epochs of the address space
 * (space events, the next epoch's time), time events only where the clock
 * moves, the first error of a stretch resolved into one error event with
 * the bytes skipped (said one by one up to a limit, blamed on a file, or
 * summed up at the end), blocks that do not match the code, overflow, a
 * trace cut while on, and the end (consumer, stats, progress).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flow_producer.h"
#include "unit_check.h"

/* What the consumer was handed. */
struct seen {
	int begun, ended;
	size_t steps;
	struct hwt_flow_event events[64];
	size_t count;
};

static void *seen_begin(void *consumer, const struct hwt_flow_stream *stream)
{
	struct seen *s = consumer;

	(void)stream;
	s->begun++;
	return s;
}

static void seen_steps(void *context, const struct hwt_flow_step *steps, size_t count)
{
	(void)steps;
	((struct seen *)context)->steps += count;
}

static void seen_event(void *context, const struct hwt_flow_event *event)
{
	struct seen *s = context;

	if (s->count < sizeof(s->events) / sizeof(s->events[0]))
		s->events[s->count] = *event;
	s->count++;
}

static int seen_end(void *context)
{
	((struct seen *)context)->ended++;
	return 0;
}

static uint64_t progress_done;

static void progress(uint64_t done, uint64_t total, void *context)
{
	(void)total;
	(void)context;
	progress_done = done;
}

/* The diagnostics of bundle holding text. */
static int diags_with(const struct hwt_bundle *bundle, const char *text)
{
	int n = 0;

	for (size_t i = 0; i < hwt_bundle_diag_count(bundle); i++)
		n += strstr(hwt_bundle_diag_at(bundle, i)->message, text) != NULL;
	return n;
}

int main(void)
{
	char path[] = "/tmp/hwt_flow_producer_XXXXXX";
	struct seen seen = { 0 };
	struct hwt_flow_consumer consumer = { seen_begin, seen_steps, seen_event, seen_end,
					      &seen, HWT_FLOW_WANT_TIME };
	struct hwt_decode_options options = { .progress = progress, .flow = &consumer };
	struct hwt_epoch epochs[3] = { { .time = 0 }, { .time = 100 }, { .time = 200 } };
	struct hwt_space space = { epochs, 3, "prog" };
	struct hwt_bundle_stream stream = { .pid = 7, .tid = 8, .path = path, .size = 1000,
					    .image = -1 };
	struct hwt_bundle_stream missing = stream;
	struct hwt_bundle *bundle = hwt_bundle_alloc();
	struct hwt_flow_block block = { .vaddr = 0x1000 };
	struct hwt_file file = { .image = -1 };
	struct hwt_flow_producer p, q;
	struct hwt_decode_shared shared;
	struct hwt_decoder d;
	uint8_t bytes[1000] = { 0 };
	uint8_t *buf;
	size_t size = 0;
	int fd = mkstemp(path);

	if (!bundle || fd < 0 || write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes)) {
		perror("flow_producer_test");
		return 1;
	}
	close(fd);
	hwt_decode_shared_init(&shared, &options);
	hwt_decoder_init(&d, &shared, NULL);
	hwt_decoder_set_bundle(&d, bundle);
	d.shared->clock = hwt_flow_clock_tsc; /* a clock that is a time: time events wanted */

	/* A stream that cannot be read: said when the bundle says it has bytes. */
	missing.path = "/nonexistent/stream.pt";
	hwt_flow_producer_init(&q, &d, &missing, &space);
	CHECK(!hwt_flow_producer_map(&q, &size));
	CHECK(diags_with(bundle, "cannot read the stream") == 1);
	missing.size = 0;
	CHECK(!hwt_flow_producer_map(&q, &size));
	CHECK(diags_with(bundle, "cannot read the stream") == 1);
	CHECK(d.stats.streams == 0);
	hwt_flow_producer_fini(&q);

	hwt_flow_producer_init(&p, &d, &stream, &space);
	CHECK(p.epoch == 0 && p.next_time == 100 && p.last_time == UINT64_MAX);
	buf = hwt_flow_producer_map(&p, &size);
	CHECK(buf && size == 1000);
	CHECK(d.stats.streams == 1 && d.stats.trace_bytes == 1000);
	CHECK(hwt_flow_producer_begin(&p) == 0);
	CHECK(seen.begun == 1 && p.out.want_time);

	/* Epochs: a space event each time the trace passes the next one's time. */
	CHECK(hwt_flow_producer_epoch(&p, 50) == 0);
	CHECK(seen.count == 0);
	CHECK(hwt_flow_producer_epoch(&p, 150) == 1);
	CHECK(p.epoch == 1 && p.next_time == 200);
	CHECK(seen.count == 1 && seen.events[0].type == hwt_flow_ev_space &&
	      seen.events[0].time == 100);
	CHECK(hwt_flow_producer_epoch(&p, 199) == 0 && seen.count == 1);
	CHECK(hwt_flow_producer_epoch(&p, 5000) == 1);
	CHECK(p.epoch == 2 && p.next_time == UINT64_MAX);
	CHECK(seen.count == 2 && seen.events[1].time == 200);

	/* Time: one event where the clock moves. */
	hwt_flow_producer_time(&p, 7);
	hwt_flow_producer_time(&p, 7);
	hwt_flow_producer_time(&p, 9);
	CHECK(seen.count == 4 && seen.events[2].type == hwt_flow_ev_time &&
	      seen.events[2].time == 7 && seen.events[3].time == 9);

	/* A break: steps batched before it go first; the flow starts over. */
	hwt_flow_out_step(&p.out, &block, hwt_flow_start);
	p.last = &block;
	{
		struct hwt_flow_event ev = { .type = hwt_flow_ev_disabled, .ip = 0x40 };

		hwt_flow_producer_break(&p, &ev, hwt_flow_enabled);
	}
	CHECK(seen.steps == 1 && seen.count == 5 && seen.events[4].ip == 0x40);
	CHECK(!p.last && p.next_kind == hwt_flow_enabled);

	/* The first error of a stretch counts; resolved into one error event. */
	hwt_flow_resume_off(&p.resume, 0x40);
	p.last = &block;
	CHECK(hwt_flow_producer_resolve(&p, 30) == hwt_flow_resolved_none);
	CHECK(hwt_flow_producer_error_at(&p, 10, -3, 0x1234, NULL) == 1);
	CHECK(hwt_flow_producer_error_at(&p, 20, -4, 0, NULL) == 0);
	CHECK(hwt_flow_producer_resolve(&p, 50) == hwt_flow_resolved_say);
	CHECK(seen.count == 6 && seen.events[5].type == hwt_flow_ev_error &&
	      seen.events[5].offset == 10 && seen.events[5].bytes == 40 &&
	      seen.events[5].status == -3 && seen.events[5].ip == 0x1234);
	CHECK(p.err.skipped == 40 && !p.err.pending);
	CHECK(!p.last && p.next_kind == hwt_flow_start && p.resume.expected == 0);
	CHECK(p.errors == 1 && p.error_bytes == 40);
	CHECK(d.stats.errors == 1 && d.stats.error_bytes == 40);
	CHECK(hwt_flow_producer_resolve(&p, 60) == hwt_flow_resolved_none);
	/* Resumed before the error: nothing skipped. */
	hwt_flow_producer_error_at(&p, 70, -3, 0, NULL);
	CHECK(hwt_flow_producer_resolve(&p, 60) == hwt_flow_resolved_say && p.err.skipped == 0);

	/* An error in a file's code: counted on the file, said at the end. */
	hwt_flow_producer_error_at(&p, 100, -5, 0x2000, &file);
	CHECK(hwt_flow_producer_resolve(&p, 110) == hwt_flow_resolved_counted);
	CHECK(file.fail.failures == 1 && file.fail.failed_bytes == 10 &&
	      file.fail.failed_streams == 1);
	CHECK(p.errors == 3 && p.error_messages == 2);

	/* Said one by one up to HWT_FLOW_ERROR_MESSAGES, the rest summed up. */
	for (int k = 0; k < 5; k++) {
		hwt_flow_producer_error_at(&p, 200 + 10 * (uint64_t)k, -3, 0, NULL);
		CHECK(hwt_flow_producer_resolve(&p, 201 + 10 * (uint64_t)k) ==
		      (k < 3 ? hwt_flow_resolved_say : hwt_flow_resolved_counted));
	}
	CHECK(p.errors == 8 && p.error_messages == 7 && p.error_bytes == 55);
	/* Bytes lost without an error event (ETMv4: before the first A-Sync). */
	hwt_flow_producer_count_error(&p, 5);
	CHECK(p.errors == 9 && p.error_bytes == 60 && p.error_messages == 7);
	CHECK(d.stats.errors == 9 && d.stats.error_bytes == 60);

	/* Blocks that do not match the code: counted, the first described. */
	hwt_flow_producer_bad_block(&p, "block at 0x%x", 0x10);
	hwt_flow_producer_bad_block(&p, "block at 0x%x", 0x20);
	CHECK(p.bad_blocks == 2 && !strcmp(p.bad_example, "block at 0x10"));

	hwt_flow_producer_overflow(&p, 33);
	CHECK(d.stats.overflows == 1 && diags_with(bundle, "trace overflow") == 1);

	/* Cut while on: not said where errors explain it. */
	p.enabled = 1;
	hwt_flow_producer_cut(&p, 1000, "tracing was enabled");
	CHECK(diags_with(bundle, "the trace ends at offset") == 0);

	p.blocks = 3;
	p.insns = 30;
	CHECK(hwt_flow_producer_end(&p, "ranges") == 0);
	CHECK(seen.ended == 1);
	CHECK(d.stats.blocks == 3 && d.stats.insns == 30);
	CHECK(d.done_bytes == 1000 && progress_done == 1000);
	CHECK(diags_with(bundle, "2 more decode errors not listed (9 decode errors in all, "
				 "60 trace bytes skipped)") == 1);
	CHECK(diags_with(bundle, "2 decoded ranges do not match the code in the image files "
				 "and were not counted, e.g. block at 0x10") == 1);
	CHECK(!d.nomem);
	hwt_flow_producer_fini(&p);
	munmap(buf, size);

	/* Cut while on, nothing to explain it: said, unless the recording was capped. */
	hwt_flow_producer_init(&q, &d, &stream, &space);
	q.enabled = 1;
	hwt_flow_producer_cut(&q, 0x3e8, "tracing was enabled");
	CHECK(diags_with(bundle, "the trace ends at offset 0x3e8 while tracing was enabled: "
				 "the stream was cut") == 1);
	d.shared->trace_cap = 1;
	hwt_flow_producer_cut(&q, 0x3e8, "tracing was enabled");
	CHECK(diags_with(bundle, "the trace ends at offset") == 1);
	q.enabled = 0;
	d.shared->trace_cap = 0;
	hwt_flow_producer_cut(&q, 0x3e8, "tracing was enabled");
	CHECK(diags_with(bundle, "the trace ends at offset") == 1);
	/* Ended without a consumer begun (hwt_pt_counts_add's way): nothing handed out. */
	CHECK(hwt_flow_producer_end(&q, "blocks") == 0 && seen.ended == 1);
	hwt_flow_producer_fini(&q);

	unlink(path);
	hwt_bundle_free(bundle);
	return unit_exit("flow_producer_test");
}
