/*
 * The control flow of one thread, in execution order: what a decoder
 * (a producer: libipt's block decoder in stream.c; an OpenCSD one and an
 * edge decoder after it) hands to what is built from a trace (a consumer:
 * the profile accumulator in flow_profile.c, the stack builder in
 * converters/stacks).
 *
 * A producer decodes one thread stream at a time and calls its consumer:
 *
 *     begin(stream)                 once, before anything else
 *     steps(steps[], n) | event(e)  any number, in execution order
 *     end()                         once, after everything else
 *
 * A step is a block (straight-line instructions, first to last, all of
 * which ran) with the transfer that entered it. Two steps in a row are two
 * blocks that ran one after the other: the kind of the second says how
 * control got from the last instruction of the first to the first of the
 * second. Events come between steps, where something other than the
 * instructions happened: the trace went off or on, was lost or damaged,
 * the address space changed, time passed.
 *
 * The rules every producer keeps:
 *  - Blocks are straight-line: a block holds no branch but possibly its
 *    last instruction. A producer that follows direct jumps and calls
 *    without trace (libipt does) splits there, so each call is a step of
 *    kind hwt_flow_call.
 *  - A block handed out stays valid, unchanged, until end() returns, and a
 *    block that runs again is handed out as the same pointer (consumers
 *    may count by pointer). Blocks are numbered densely from 0 in the
 *    order they first appear (hwt_flow_block.id). Blocks of one stream are
 *    never shared with another stream.
 *  - The kind of a step that follows a step without an event in between
 *    is one of the continuing kinds (hwt_flow_next .. hwt_flow_far). After
 *    an event, the next step has a kind from hwt_flow_start on, which says
 *    how the thread got there as far as the trace tells.
 *  - Signals: when the trace goes off and comes back elsewhere than where
 *    it went off (a system call returns after its instruction, an
 *    interrupted instruction is retried), a signal handler was entered
 *    (hwt_flow_signal) and the place where it would have gone on is saved;
 *    coming back at a saved place is a return from a handler
 *    (hwt_flow_sigreturn, the saves above it dropped). Producers keep the
 *    saved places with struct hwt_flow_resume (below), so all agree.
 *  - Steps of a batch are valid only during the call.
 *
 * Consumers are called from one thread per stream; a parallel decode calls
 * begin..end of different streams from different threads at once, so a
 * consumer whose end() adds to something shared takes a lock there.
 */
#ifndef HWT_FLOW_H
#define HWT_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "hwt_bundle.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How control entered a block. */
enum hwt_flow_kind {
	/* Continuing from the previous step's block, by its last instruction: */
	hwt_flow_next,            /* no branch: the previous block was cut short
	                             (an event, a length limit) and this one follows it */
	hwt_flow_cond_taken,      /* conditional branch, taken */
	hwt_flow_cond_not_taken,  /* conditional branch, not taken */
	hwt_flow_jump,            /* direct jump */
	hwt_flow_call,            /* direct call */
	hwt_flow_return,          /* near return */
	hwt_flow_indirect_jump,   /* jump through a register or memory */
	hwt_flow_indirect_call,   /* call through a register or memory */
	hwt_flow_far,             /* syscall-class or far transfer, or a branch that went
	                             elsewhere than it can (an asynchronous event) */
	hwt_flow_unknown,         /* the previous block's last instruction is unreadable */
	/* After an event (the previous step's block did not lead here): */
	hwt_flow_start,           /* the first block of the stream, or after a gap
	                             (overflow, decode error: see the events) */
	hwt_flow_syscall,         /* the trace came back where it went off: a system call
	                             (or an interrupt) returned, or the instruction that
	                             faulted is retried */
	hwt_flow_signal,          /* came back elsewhere: a signal handler was entered;
	                             the place it went off at is saved */
	hwt_flow_sigreturn,       /* came back at a saved place: a handler returned */
	hwt_flow_enabled,         /* came back elsewhere with nothing to say how (the trace
	                             was off for another reason: a filter, a trace start) */
	hwt_flow_kind_count
};

/* A short name ("call", "sigreturn", ...), or NULL. */
const char *hwt_flow_kind_name(enum hwt_flow_kind kind);

/* Block flags. */
#define HWT_FLOW_BLOCK_TRACE_UNIT 0x1u /* code of the trace unit: decoded through, never
                                          reported (a consumer counts nothing there) */
#define HWT_FLOW_BLOCK_UNREADABLE 0x2u /* its code does not match the image files (or is
                                          in no readable file): offsets are 0 */

/* Classes of a block's last instruction (in common/x86_insn.h's order). */
enum hwt_flow_exit {
	hwt_flow_exit_other,      /* not a branch */
	hwt_flow_exit_cond,
	hwt_flow_exit_jump,
	hwt_flow_exit_call,
	hwt_flow_exit_indirect_jump,
	hwt_flow_exit_indirect_call,
	hwt_flow_exit_return,
	hwt_flow_exit_far,        /* syscall, sysenter, int, iret, far jmp/call/ret... */
	hwt_flow_exit_unknown,    /* could not be read */
};

struct hwt_flow_block {
	uint64_t vaddr;           /* virtual address of the first instruction */
	uint64_t vend;            /* of the last instruction */
	uint64_t vnext;           /* just after the last instruction (vend + its length;
	                             vend + 1 when unknown) */
	uint64_t offset;          /* file offset of the first instruction in image */
	uint64_t end_offset;      /* of the last instruction */
	int32_t image;            /* index of its image in the stream's profile, -1: none */
	uint32_t insns;           /* instructions, >= 1 */
	uint32_t flags;           /* HWT_FLOW_BLOCK_* */
	uint32_t exit;            /* enum hwt_flow_exit */
	uint32_t id;              /* 0, 1, 2...: the block's index among the stream's
	                             blocks (consumers may keep arrays by it) */
};

struct hwt_flow_step {
	const struct hwt_flow_block *block;
	uint32_t kind;            /* enum hwt_flow_kind: how block was entered */
	uint32_t reserved;
};

enum hwt_flow_event_type {
	hwt_flow_ev_disabled,     /* the trace went off (a system call, an interrupt or a
	                             fault when async, a filter); ip: where it would go on
	                             (the next instruction, or the interrupted one), 0 unknown */
	hwt_flow_ev_enabled,      /* the trace came back on at ip; the next step says how */
	hwt_flow_ev_overflow,     /* the trace unit dropped trace (OVF); ip: where it
	                             resumed, 0 unknown */
	hwt_flow_ev_error,        /* a decode error: offset (in the stream) where it happened,
	                             bytes skipped to the resync (or the end), status a
	                             negative libipt-style error code of the producer */
	hwt_flow_ev_lost,         /* the recording says trace was dropped here (sideband
	                             LOST): bytes, records */
	hwt_flow_ev_space,        /* the address space changed (sideband MMAP/MUNMAP applied
	                             at time) */
	hwt_flow_ev_time,         /* time passed: time is the trace's clock now (only when
	                             the consumer asks, HWT_FLOW_WANT_TIME, and the trace
	                             has a time clock, hwt_flow_clock_tsc) */
	hwt_flow_ev_count
};

/* A short name ("overflow", ...), or NULL. */
const char *hwt_flow_event_name(enum hwt_flow_event_type type);

/* Event flags. */
#define HWT_FLOW_EV_ASYNC 0x1u  /* disabled: by an interrupt or fault, not by the
                                   instruction before it */

struct hwt_flow_event {
	uint32_t type;            /* enum hwt_flow_event_type */
	uint32_t flags;           /* HWT_FLOW_EV_* */
	uint64_t ip;
	uint64_t offset;          /* stream offset of the packet, when known */
	uint64_t bytes;           /* error: skipped; lost: dropped */
	uint64_t records;         /* lost: records dropped */
	uint64_t time;            /* space, time: the clock (docs/bundle.md, "Clock") */
	int status;               /* error: the producer's error code (negative) */
};

/* The clock of a bundle (its header's clock key). */
enum hwt_flow_clock {
	hwt_flow_clock_sequence,  /* a counter of sideband records: an order, not a time */
	hwt_flow_clock_tsc,       /* the time stamp counter */
};

/* What a stream is. */
struct hwt_flow_stream {
	const struct hwt_bundle_stream *stream;  /* pid, tid, path */
	const struct hwt_bundle_image *image;    /* its process image */
	const char *command;      /* the process image's executable (PROCESS_START), or "" */
	const struct hwt_profile *profile;       /* images that blocks name; read only and
	                                            valid until end() returns */
	uint32_t clock;           /* enum hwt_flow_clock */
};

/* Consumer flags. */
#define HWT_FLOW_WANT_TIME 0x1u /* hwt_flow_ev_time events where the clock moves */

/*
 * A consumer. begin returns the stream's context (passed to the other
 * calls), or NULL when out of memory (the producer then stops the
 * decode). end returns 0, or -1 when out of memory.
 */
struct hwt_flow_consumer {
	void *(*begin)(void *consumer, const struct hwt_flow_stream *stream);
	void (*steps)(void *context, const struct hwt_flow_step *steps, size_t count);
	void (*event)(void *context, const struct hwt_flow_event *event);
	int (*end)(void *context);
	void *consumer;           /* passed to begin */
	uint32_t flags;           /* HWT_FLOW_WANT_* */
};

/*
 * The places where a thread's trace went off and was expected to come back
 * (see "Signals" above), kept the same way by every producer. Memory:
 * hwt_flow_resume_fini.
 */
struct hwt_flow_resume {
	uint64_t expected;        /* where the trace went off: it comes back here, 0 unknown */
	uint64_t *saved;          /* places saved by signals, innermost last */
	size_t count, capacity;
};

/* The trace went off; ip as in hwt_flow_ev_disabled. */
void hwt_flow_resume_off(struct hwt_flow_resume *r, uint64_t ip);
/*
 * The trace came back at ip: the kind of the next step (hwt_flow_syscall,
 * _signal, _sigreturn or _enabled). Returns -1 when out of memory.
 */
int hwt_flow_resume_on(struct hwt_flow_resume *r, uint64_t ip);
/* Forget everything (after a gap). */
void hwt_flow_resume_reset(struct hwt_flow_resume *r);
void hwt_flow_resume_fini(struct hwt_flow_resume *r);

#ifdef __cplusplus
}
#endif

#endif /* HWT_FLOW_H */
