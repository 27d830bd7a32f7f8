/*
 * hwt's Valgrind tool: a software trace unit that writes, per thread, the
 * Intel PT packets that a user-mode-only PT unit with return compression
 * off would write, plus the sideband (docs/bundle.md) of the process.
 *
 * Valgrind runs one guest thread at a time (its big lock), so the tool's
 * state needs no locking. Nothing here may use libc: only Valgrind's
 * VG_(...) functions and the libc-free code in common/.
 */
#ifndef HWT_VG_TOOL_H
#define HWT_VG_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "hwt_record.h"
#include "hwt_trace_budget.h"
#include "pt_encoder.h"

/* Command-line options (--hwt-...). */
struct hwt_vg_options {
	const HChar *bundle;     /* bundle directory, made by `hwt record` */
	Bool debug_blocks;       /* write blocks/<image>-<tid>.blk */
	Long psb_period;         /* bytes of packets between two PSB+ */
	Long buffer_size;        /* per-thread packet buffer */
	const HChar *filters[16]; /* --hwt-filter=IMAGE[:FUNCTION] */
	UInt nfilters;
	Bool select_filter;      /* --hwt-select-filter: only the images the selection
	                            selects (filter.c) */
	Bool debuginfo;          /* --hwt-debuginfo: let Valgrind read debug info */
	Bool unfollowed;         /* --hwt-unfollowed: a static program, whose execs the
	                            preloaded library cannot see (docs/select.md) */
};
extern struct hwt_vg_options hwt_vg_opts;

/* ---- process.c: this process image, its sideband file and clock ---- */

/* Opens this image's sideband file and writes PROCESS_START. */
void hwt_vg_process_start(void);
/* The run's trace size cap (select/trace-budget), NULL when none: mapped shared
   at start, so fork children and other processes of the run count together. */
extern struct hwt_trace_budget *hwt_vg_budget;
/* In a fork child: a new image with its own sideband file. */
void hwt_vg_process_start_forked(void);
/* Appends a record; fills the header's magic, type, size, time, pid, tid. */
void hwt_vg_process_record(struct hwt_record_header *hdr, UInt type, UInt size);
/* Writes PROCESS_EXIT and closes the sideband file. */
void hwt_vg_process_exit(Int status);
/* The sideband clock: bumped by every record. */
extern ULong hwt_vg_process_clock;
/* "<pid>.<gen>": the prefix of this image's files in the bundle. */
const HChar *hwt_vg_process_name(void);
/* Counts trace bytes that could not be written, for the summary. */
void hwt_vg_process_lost(UInt reason, UInt records, ULong bytes);

/* ---- image.c: executable mappings ---- */

void hwt_vg_image_mapped(Addr a, SizeT len, Bool rr, Bool ww, Bool xx);
void hwt_vg_image_unmapped(Addr a, SizeT len);
void hwt_vg_image_protected(Addr a, SizeT len, Bool rr, Bool ww, Bool xx);
/* Records the code Valgrind itself runs for the guest (the sigreturn trampoline). */
void hwt_vg_image_trace_unit(void);
/* Records again every executable mapping (a fork child inherits them). */
void hwt_vg_image_replay(void);

/* ---- filter.c: address-range filtering (--hwt-filter) ---- */

struct hwt_vg_range {
	Addr start, end;         /* [start, end) */
};
extern struct hwt_vg_range hwt_vg_filter_ranges[];
extern UInt hwt_vg_filter_nranges;
/* Filters were asked for: only code inside the ranges is traced. */
extern Bool hwt_vg_filter_active;

void hwt_vg_filter_init(void);
/* --hwt-select-filter: whether the selection traces the file image at path
   (True without the option). */
Bool hwt_vg_filter_selected(const HChar *path, const UChar *build_id, UInt build_id_size);
/* A file mapping [start, end) at file offset pgoff, recorded with the MMAP
   flags flags: adds the ranges it holds. */
void hwt_vg_filter_mapped(const HChar *path, Addr start, Addr end, ULong pgoff, UInt flags);
void hwt_vg_filter_unmapped(Addr a, SizeT len);

static inline Bool hwt_vg_filter_in(Addr a)
{
	UInt i;

	for (i = 0; i < hwt_vg_filter_nranges; i++)
		if (a >= hwt_vg_filter_ranges[i].start && a < hwt_vg_filter_ranges[i].end)
			return True;
	return False;
}

/* ---- thread.c: per-thread trace stream ---- */

/*
 * What the encoder does when an exit is taken, decided when its block is
 * translated, so that the common exits need nothing but their log entry.
 */
enum hwt_vg_exit_kind {
	HWT_VG_EXIT_QUIET,     /* no packet: direct jump or call, no branch */
	HWT_VG_EXIT_NOT_TAKEN, /* conditional branch that fell through: TNT 0 */
	HWT_VG_EXIT_TAKEN,     /* conditional branch taken: TNT 1 */
	HWT_VG_EXIT_TIP,       /* indirect branch or return: TIP(target) */
	HWT_VG_EXIT_SLOW,      /* anything else (leaves user mode, prefix bits) */
};

/*
 * Static description of one way out of a translated block, built when the
 * block is instrumented; the exit log names it by its index.
 */
struct hwt_vg_exit {
	Addr start;          /* first instruction of the block */
	Addr insn;           /* the instruction this exit leaves from */
	Addr fallthrough;    /* insn + its length */
	Addr target;         /* where the exit goes, when that is constant */
	UInt ninsns;         /* instructions executed from start to insn, inclusive */
	UChar kind;          /* enum hwt_vg_exit_kind */
	UChar branch;        /* enum hwt_x86_branch of insn */
	UChar leaves_user;   /* syscall / int: tracing stops (TIP.PGD) */
	UChar rep;           /* insn is a REP string instruction */
	UChar prefix_count;  /* conditional branches passed before insn */
	ULong prefix_bits;   /* their outcomes, oldest first in bit 0 */
};

/* Every exit described so far (instrument.c); entries of the log index it. */
extern struct hwt_vg_exit *hwt_vg_exits;

struct hwt_vg_thread;
/* The thread running guest code now. */
extern struct hwt_vg_thread *hwt_vg_thread_current;

/*
 * The exit log: translated code appends one entry per executed block that
 * writes a packet (every block with the block log or filters, instrument.c). Its
 * word holds the exit's index << 4, HWT_VG_LOG_TARGET, and the exit's kind
 * in the low 3 bits; target is where the exit went, written only when that
 * is not constant or the exit is a TIP (HWT_VG_LOG_TARGET). The encoder
 * handles QUIET, TAKEN and NOT_TAKEN from the word alone and TIP from the
 * word and the target, without looking at the exit's description. Entries
 * have one size, so that reading one does not wait for the one before.
 *
 * HWT_VG_LOG_ENTRIES entries fit (16 KiB: it stays in the L1 cache between
 * the stores and the encoding loop; 256 and 4096 entries were measured 5%
 * slower on cpu_interp); the one extra slot is the slack that lets the
 * fullness check run once at block entry (a block adds one entry).
 */
struct hwt_vg_log_entry {
	UInt word;
	UInt unused;     /* zero: stored with word as one 64-bit immediate */
	Addr target;
};
#define HWT_VG_LOG_ENTRIES 1024
#define HWT_VG_LOG_KIND 0x7u
#define HWT_VG_LOG_TARGET 0x8u
#define HWT_VG_LOG_INDEX_SHIFT 4
/* Exits the log's index field can name. */
#define HWT_VG_EXITS_MAX (1u << (32 - HWT_VG_LOG_INDEX_SHIFT))
extern struct hwt_vg_log_entry hwt_vg_log[HWT_VG_LOG_ENTRIES + 1];
extern struct hwt_vg_log_entry *hwt_vg_log_cursor;

/* The exit an entry names. */
static inline const struct hwt_vg_exit *hwt_vg_log_exit(const struct hwt_vg_log_entry *e)
{
	return &hwt_vg_exits[e->word >> HWT_VG_LOG_INDEX_SHIFT];
}

/* Where the exit of an entry went. */
static inline Addr hwt_vg_log_target(const struct hwt_vg_log_entry *e)
{
	return e->word & HWT_VG_LOG_TARGET ? e->target : hwt_vg_log_exit(e)->target;
}

void hwt_vg_thread_init(void);
/* Turns the exit log into packets of the current thread. Called by translated
   code when the log is full, and before anything that must follow its blocks. */
void hwt_vg_thread_flush_log(void);
void hwt_vg_thread_set_current(ThreadId tid);
/* An asynchronous event (signal delivery, death) interrupts tid at ip. */
void hwt_vg_thread_interrupt(ThreadId tid, Addr ip);
/* The process dies: every thread still in user mode is interrupted where it is. */
void hwt_vg_thread_interrupt_all(void);
/* Writes out every thread's buffered packets. */
void hwt_vg_thread_drain_all(void);
/* The thread is gone: finish and close its stream. */
void hwt_vg_thread_finish(ThreadId tid);
void hwt_vg_thread_finish_all(void);
/* In a fork child: forget the parent's streams (the parent writes them). */
void hwt_vg_thread_forget_all(void);
/* Totals for the PROCESS_EXIT bookkeeping. */
ULong hwt_vg_thread_bytes(void);

/* ---- instrument.c ---- */

IRSB *hwt_vg_instrument(VgCallbackClosure *closure, IRSB *in,
			const VexGuestLayout *layout, const VexGuestExtents *vge,
			const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy);

/* ---- small utilities (util.c) ---- */

/*
 * Files in the bundle, <bundle>/<dir>/<name>. Create makes (or, not
 * exclusive, empties) one; exclusive fails quietly when it exists. Append
 * adds all of buf. No descriptor stays open (util.c says why).
 */
Bool hwt_vg_file_create(const HChar *dir, const HChar *name, Bool exclusive);
Bool hwt_vg_file_append(const HChar *dir, const HChar *name, const void *buf, SizeT len);

#endif /* HWT_VG_TOOL_H */
