/*
 * flow_producer.c: what a producer of the control flow (hwt_flow.h) does
 * the same way whatever decoder library reads its trace: stream.c
 * (libipt, Intel PT) and etm_stream.c (OpenCSD, ETMv4) each embed one and
 * keep only what is their library's. It holds the stream's place in the
 * address space's epochs, how the next block is entered, the clock, the
 * error waiting for where decoding resumes, and what went wrong; it
 * counts into the decoder's stats and says the stream's diagnostics.
 *
 * Its life: hwt_flow_producer_init, hwt_flow_producer_map (the stream's
 * bytes, counted), hwt_flow_producer_begin (the consumer), the decode,
 * hwt_flow_producer_end (the consumer's end, the summing-up diagnostics,
 * the stats), hwt_flow_producer_fini.
 */
#ifndef HWT_FLOW_PRODUCER_H
#define HWT_FLOW_PRODUCER_H

#include "decode_int.h"

/* Errors of one stream said one by one; the rest are summed up. */
#define HWT_FLOW_ERROR_MESSAGES 5

/* The first error of a stretch of trace that does not decode, held until
   decoding resumes (or the stream ends): then the bytes skipped are known. */
struct hwt_flow_error {
	int pending;
	int status;            /* the decoder library's code, negative */
	uint64_t offset;       /* in the stream */
	uint64_t ip;           /* where in the code, 0: unknown */
	struct hwt_file *file; /* the file whose code stopped the decode, or NULL */
	uint64_t skipped;      /* once resolved: bytes from offset to where it resumed */
};

struct hwt_flow_producer {
	struct hwt_decoder *d;
	const struct hwt_bundle_stream *stream;
	struct hwt_space *space;
	size_t epoch;               /* of space: the address space now */
	uint64_t next_time;         /* of epoch + 1, UINT64_MAX when none */
	/* How the next block is entered: from last (NULL: after an event, then next_kind). */
	const struct hwt_flow_block *last;
	uint32_t next_kind;
	int started;                /* a step was handed out */
	int enabled;                /* the trace is on (user code runs) */
	struct hwt_flow_resume resume;
	uint64_t last_time;         /* of the last time event, UINT64_MAX: none */
	uint64_t bytes;             /* of the stream, as recorded (hwt_flow_producer_map) */
	uint64_t blocks, insns;     /* decoded: into d's stats at the end */
	/* What went wrong. */
	struct hwt_flow_error err;
	uint64_t errors, error_bytes, error_messages;
	uint64_t bad_blocks;        /* blocks that do not match the code */
	char bad_example[160];      /* the first of them */
	int nomem;
	struct hwt_flow_out out;    /* the consumer, the blocks */
};

/* p for stream (of process image space) decoded by d: epoch 0, nothing handed out. */
void hwt_flow_producer_init(struct hwt_flow_producer *p, struct hwt_decoder *d,
			    const struct hwt_bundle_stream *stream, struct hwt_space *space);
/* Frees what p holds (not the consumer's blocks: hwt_flow_producer_end). */
void hwt_flow_producer_fini(struct hwt_flow_producer *p);

/*
 * The stream's bytes, mapped read-only (*size of them; munmap them), and
 * counted in d's stats as one stream of that many trace bytes. NULL when
 * it cannot be read or is empty: said when the bundle says it is not.
 */
uint8_t *hwt_flow_producer_map(struct hwt_flow_producer *p, size_t *size);

/* Starts the consumer (hwt_flow_out_begin). 0, or -1 when out of memory. */
int hwt_flow_producer_begin(struct hwt_flow_producer *p);

/*
 * Ends the stream: the consumer's end, then the diagnostics that sum it
 * up (errors not listed, blocks that do not match the code: "blocks" or
 * "ranges", as the format calls them), its blocks and instructions into
 * d's stats, its bytes into the progress. A lack of memory anywhere fails
 * the decode (d->nomem). 0 or -hbe_nomem.
 */
int hwt_flow_producer_end(struct hwt_flow_producer *p, const char *blocks_noun);
/* The diagnostic of the blocks that did not match the code, if any. */
void hwt_flow_producer_report_bad(struct hwt_flow_producer *p, const char *blocks_noun);

/* An event after which the next block does not continue from the last one. */
static inline void hwt_flow_producer_break(struct hwt_flow_producer *p,
					   const struct hwt_flow_event *ev, uint32_t next_kind)
{
	hwt_flow_out_event(&p->out, ev);
	p->last = NULL;
	p->next_kind = next_kind;
}

/* Hands out a time event when the clock moved since the last one. */
static inline void hwt_flow_producer_time(struct hwt_flow_producer *p, uint64_t time)
{
	struct hwt_flow_event ev = { .type = hwt_flow_ev_time };

	if (time == p->last_time)
		return;
	p->last_time = time;
	ev.time = time;
	hwt_flow_out_event(&p->out, &ev);
}

/*
 * Applies the sideband records up to time (the trace passed it): moves to
 * the last epoch that begins by then, with a space event. 1 when the epoch
 * changed (the caller forgets the blocks it keeps by address), else 0.
 */
int hwt_flow_producer_epoch(struct hwt_flow_producer *p, uint64_t time);

/* An error at offset of the stream. 1, or 0 when one is already pending
   (the first of a stretch is the one that counts). */
int hwt_flow_producer_error_at(struct hwt_flow_producer *p, uint64_t offset, int status,
			       uint64_t ip, struct hwt_file *file);

/* What hwt_flow_producer_resolve did. */
enum hwt_flow_resolved {
	hwt_flow_resolved_none,    /* no error was pending */
	hwt_flow_resolved_counted, /* handed out and counted (blamed on its file, or
				      past the errors said one by one) */
	hwt_flow_resolved_say,     /* the same, and the caller says it: p->err */
};
int hwt_flow_producer_resolve_pending(struct hwt_flow_producer *p, uint64_t resumed);
/*
 * The pending error, resolved where decoding resumed (or the stream ends):
 * an error event with the bytes skipped (p->err.skipped), after which the
 * flow starts over; counted in p and d's stats. An enum hwt_flow_resolved.
 */
static inline int hwt_flow_producer_resolve(struct hwt_flow_producer *p, uint64_t resumed)
{
	return p->err.pending ? hwt_flow_producer_resolve_pending(p, resumed)
			      : hwt_flow_resolved_none;
}

/* A decode error that lost bytes of trace: counted in p and d's stats. */
void hwt_flow_producer_count_error(struct hwt_flow_producer *p, uint64_t bytes);

/* A block that does not match the code in the image files: counted, the
   first described (printf's fmt). */
void hwt_flow_producer_bad_block(struct hwt_flow_producer *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The trace unit said it dropped trace (offset in the stream, -1: unknown). */
void hwt_flow_producer_overflow(struct hwt_flow_producer *p, int64_t offset);

/* The trace ends at offset: said when it is still on then ("while " what),
   unless errors explain it or the recording was capped (--max-trace-size). */
void hwt_flow_producer_cut(struct hwt_flow_producer *p, uint64_t offset, const char *what);

#endif /* HWT_FLOW_PRODUCER_H */
