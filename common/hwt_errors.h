/*
 * Error codes of every hwt library, one numbering for the project.
 *
 * A library returns its errors negated and names them with its own errstr
 * function. The codes every library has (success, a bug, a bad argument,
 * no memory, a failed read or write) are defined here once; each library's
 * enum gives them its own prefix (hbe_nomem == hwt_err_nomem) and numbers
 * its own codes from a range of its own below, so a code that travels from
 * one library through another still means one thing, and
 * hwt_error_library() tells whose it is. Libc-free: hwt.ko's user-space
 * collector and the freestanding common code include it too.
 */
#ifndef HWT_ERRORS_H
#define HWT_ERRORS_H

enum hwt_error {
	hwt_ok = 0,
	hwt_err_internal = 1,  /* a bug in the library */
	hwt_err_invalid = 2,   /* a bad argument */
	hwt_err_nomem = 3,
	hwt_err_io = 4,        /* a file or a system call failed; errno says why */
};

/*
 * The first code of each library's own. A range holds HWT_ERR_RANGE codes;
 * a new library takes the next free base (tests/layering/error_codes.py
 * checks that no two codes of the project are equal).
 */
#define HWT_ERR_RANGE            100
#define HWT_ERR_BUNDLE_BASE      100   /* bundle/hwt_bundle.h: hbe_ */
#define HWT_ERR_PERFDATA_BASE    200   /* perfdata/hwt_perfdata.h: hpf_ */
#define HWT_ERR_PERF_IMPORT_BASE 300   /* collector/perf/hwt_perf_import.h: hie_ */
#define HWT_ERR_KMOD_BASE        400   /* collector/kmod/hwt_kmod.h: hke_ */
#define HWT_ERR_PROFILE_BASE     500   /* converters/profile/profile.h: hpe_ */
#define HWT_ERR_ELF_BASE         600   /* converters/elf/elf_file.h: hee_ */
#define HWT_ERR_DWARF_BASE       700   /* converters/dwarf/hwt_dwarf.h: hde_ */
#define HWT_ERR_LCOV_BASE        800   /* converters/lcov/hwt_lcov.h: hle_ */
#define HWT_ERR_AFDO_BASE        900   /* converters/afdo/hwt_afdo.h: hae_ */
#define HWT_ERR_BOLT_BASE        1000  /* converters/bolt/hwt_bolt.h: hboe_ */
#define HWT_ERR_STACKS_BASE      1100  /* converters/stacks/hwt_stacks.h: hse_ */
#define HWT_ERR_DIFFCOV_BASE     1200  /* converters/diffcov/hwt_diffcov.h: hdc_ */
#define HWT_ERR_SPE_PROFILE_BASE 1300  /* converters/spe/hwt_spe_profile.h: hspe_ */
#define HWT_ERR_PERF_EXPORT_BASE 1400  /* converters/perf/hwt_perf_export.h: hxe_ */
#define HWT_ERR_END              1500

/*
 * The code after code in a library whose last code is last: the shared
 * codes, then the library's own range (for loops over every code).
 */
#define HWT_ERR_NEXT(code, last)                                    \
	((code) == hwt_err_io && (last) >= HWT_ERR_RANGE ?          \
	 (last) / HWT_ERR_RANGE * HWT_ERR_RANGE : (code) + 1)

/*
 * The library whose code this is ("bundle", "perfdata", ...), "common" for
 * the shared codes, or 0 (NULL) for a code of no library. Negative or not.
 */
static inline const char *hwt_error_library(int code)
{
	static const char *const names[] = {
		"common", "bundle", "perfdata", "perf_import", "kmod", "profile", "elf",
		"dwarf", "lcov", "afdo", "bolt", "stacks", "diffcov", "spe_profile",
		"perf_export",
	};

	if (code <= -HWT_ERR_END || code >= HWT_ERR_END)
		return 0;
	if (code < 0)
		code = -code;
	if (code < HWT_ERR_RANGE && code > hwt_err_io)
		return 0;
	return names[code / HWT_ERR_RANGE];
}

#endif /* HWT_ERRORS_H */
