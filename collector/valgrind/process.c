/*
 * The process image being traced: its sideband file, its generation in the
 * bundle and its sideband clock (docs/bundle.md, "Clock").
 */
#include "tool.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

ULong hwt_vg_process_clock;

static Bool sideband_open;
static HChar sideband_name[48];
static UInt generation;
static HChar image_name[32];
static Bool lost_write; /* a sideband write failed: said once */

const HChar *hwt_vg_process_name(void)
{
	return image_name;
}

void hwt_vg_process_record(struct hwt_record_header *hdr, UInt type, UInt size)
{
	/* Blocks that ran before this record must be in the streams before its time. */
	hwt_vg_thread_flush_log();
	hdr->magic = HWT_RECORD_MAGIC;
	hdr->type = (UShort)type;
	hdr->size = hwt_record_align(size);
	hdr->time = ++hwt_vg_process_clock;
	hdr->pid = (UInt)VG_(getpid)();
	hdr->tid = (UInt)VG_(gettid)();
	hwt_record_seal(hdr);
	if (!sideband_open || !hwt_vg_file_append("sideband", sideband_name, hdr, hdr->size)) {
		if (!lost_write)
			VG_(umsg)("hwt: cannot write the sideband of %s: records lost\n", image_name);
		lost_write = True;
	}
}

/* Creates sideband/<pid>.<gen>.sb with the smallest free generation. */
static void open_sideband(void)
{
	Int pid = VG_(getpid)();

	sideband_open = False;
	for (generation = 0; generation < 100000; generation++) {
		HChar path[VKI_PATH_MAX];
		struct vg_stat st;

		VG_(sprintf)(image_name, "%d.%u", pid, generation);
		VG_(sprintf)(sideband_name, "%s.sb", image_name);
		if (hwt_vg_file_create("sideband", sideband_name, True)) {
			sideband_open = True;
			return;
		}
		/* Only an existing file is worth another try; other errors were reported. */
		VG_(sprintf)(path, "%s/sideband/%s", hwt_vg_opts.bundle, sideband_name);
		if (sr_isError(VG_(stat)(path, &st)))
			break;
	}
	VG_(umsg)("hwt: cannot create a sideband file in %s/sideband: nothing will be recorded\n",
		  hwt_vg_opts.bundle);
}

/* PROCESS_START: ppid, generation, then path and argv as NUL-terminated strings. */
static void write_process_start(void)
{
	static UChar buf[HWT_RECORD_MAX_SIZE];
	struct hwt_record_process *rec = (struct hwt_record_process *)buf;
	SizeT room = sizeof(buf) - sizeof(*rec) - 8, used = 0;
	HChar *strings = (HChar *)(rec + 1);
	Word i, n = VG_(sizeXA)(VG_(args_for_client));
	UInt argc = 0;

	VG_(memset)(buf, 0, sizeof(*rec));
	rec->ppid = (UInt)VG_(getppid)();
	rec->generation = generation;

	/*
	 * Path, then argv: Valgrind keeps the executable's path, not the original
	 * argv[0], so the path stands for argv[0]. What does not fit is cut, and
	 * argc says how many arguments fit.
	 */
	for (i = -2; i < n; i++) {
		const HChar *s = i < 0 ? VG_(args_the_exename)
				       : *(HChar **)VG_(indexXA)(VG_(args_for_client), i);
		SizeT len = VG_(strlen)(s) + 1;

		if (used + len > room)
			break;
		VG_(memcpy)(strings + used, s, len);
		used += len;
		if (i >= -1)
			argc++;
	}
	rec->argc = argc;
	VG_(memset)(strings + used, 0, 8);
	hwt_vg_process_record(&rec->hdr, HWT_RECORD_PROCESS_START, sizeof(*rec) + used);
}

void hwt_vg_process_start(void)
{
	open_sideband();
	write_process_start();
	hwt_vg_image_trace_unit();
}

void hwt_vg_process_start_forked(void)
{
	hwt_vg_process_clock = 0;
	open_sideband();
	write_process_start();
	/* The child has its parent's mappings: its own file must say so. */
	hwt_vg_image_replay();
}

void hwt_vg_process_lost(UInt reason, UInt records, ULong bytes)
{
	struct hwt_record_lost rec;

	VG_(memset)(&rec, 0, sizeof(rec));
	rec.reason = reason;
	rec.records = records;
	rec.bytes = bytes;
	hwt_vg_process_record(&rec.hdr, HWT_RECORD_LOST, sizeof(rec));
}

void hwt_vg_process_exit(Int status)
{
	struct hwt_record_exit rec;

	VG_(memset)(&rec, 0, sizeof(rec));
	rec.status = status;
	hwt_vg_process_record(&rec.hdr, HWT_RECORD_PROCESS_EXIT, sizeof(rec));
	sideband_open = False;
}
