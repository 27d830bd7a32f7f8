/*
 * The lcov writer: line, function and branch coverage of a run, per source
 * file, from the executed instructions of each image (the profile's
 * per-instruction view) and the image's ELF and DWARF (docs/hwt-cov.md).
 *
 * Two objects, in the style of libipt:
 *
 *  - struct hwt_debuginfo: what one ELF file says about its code: build-id,
 *    PT_LOAD segments, line table rows (DWARF 4 and 5 through libdwarf) and
 *    functions (DW_TAG_subprogram);
 *  - struct hwt_coverage: per source file, lines (DA), functions (FN/FNDA)
 *    and conditional branches (BRDA), merged over every image added (a
 *    source file compiled into several images, or a library run by several
 *    processes, appears once; counts add).
 *
 * Functions return 0 or a negative enum hwt_lcov_error (hwt_lcov_errstr
 * names it). Warnings about images (no debug info, replaced files) go to
 * the coverage object's warning sink (hwt_warn.h), which the caller sets.
 */
#ifndef HWT_LCOV_H
#define HWT_LCOV_H

#include "hwt_errors.h"
#include "hwt_warn.h"
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_lcov_error {
	hle_ok = hwt_ok,
	hle_internal = hwt_err_internal,
	hle_invalid = hwt_err_invalid,
	hle_nomem = hwt_err_nomem,
	hle_io = hwt_err_io,             /* the file cannot be opened or read; errno says why */
	hle_not_elf = HWT_ERR_LCOV_BASE, /* not an ELF file libelf reads */
	hle_no_debug,                    /* no DWARF line table */
	hle_dwarf,                       /* libdwarf failed reading the DWARF */
	hle_mismatch,                    /* the file's build-id is not the recorded one */
	hle_syntax,                      /* a line of an lcov tracefile that is not an lcov record */
};

const char *hwt_lcov_errstr(int code);

/* ----- One image's debug information ------------------------------------ */

#define HWT_DEBUGINFO_BUILD_ID_MAX 20u

/*
 * One row of a line table, as a span of addresses [begin, end). A statement
 * row followed by another row at the same address (gcc's location views)
 * gives an empty span (begin == end): the line starts there but has no
 * instruction of its own.
 */
struct hwt_line_span {
	uint64_t begin, end;   /* ELF virtual addresses */
	uint32_t seq;          /* row order in the image's line tables */
	uint32_t file;         /* index in the file names (hwt_debuginfo_file) */
	uint32_t line;         /* 1-based; rows of line 0 are dropped */
	uint32_t is_stmt;      /* the row starts a statement */
	int32_t function;      /* index of the function holding begin, or -1 */
};

struct hwt_function {
	const char *name;      /* linkage name when there is one, else the name */
	uint64_t entry;        /* ELF virtual address of its entry instruction */
	uint64_t end;          /* end of the address range holding entry (a
				  function may have others: DW_AT_ranges) */
	uint32_t decl_line;    /* DW_AT_decl_line, 0 when unknown */
	int32_t decl_file;     /* its DW_AT_decl_file (hwt_debuginfo_file index);
				  -1 when unknown */
	int returns_value;     /* DW_AT_type present: not a void function */
	int artificial;        /* DW_AT_artificial: no FN and no lines, as gcov */
};

struct hwt_debuginfo;

struct hwt_debuginfo *hwt_debuginfo_alloc(void);
void hwt_debuginfo_free(struct hwt_debuginfo *info);

/*
 * Reads the ELF file path: build-id, segments, and DWARF when it has some;
 * when it has none, that of its separate debug file, found as gdb finds it
 * (by build-id, then by .gnu_debuglink with its CRC checked) in debug_dirs
 * (a NULL-terminated list of debug directories, gdb's debug-file-directory;
 * NULL: /usr/lib/debug; converters/elf/debug_file.h). Returns 0 (DWARF
 * found), -hle_no_debug (the ELF part was read: build-id and segments are
 * valid, no lines), or -hle_io, -hle_not_elf, -hle_dwarf, -hle_nomem.
 */
int hwt_debuginfo_load_dirs(struct hwt_debuginfo *info, const char *path,
			    const char *const *debug_dirs);
/* The same in /usr/lib/debug. */
int hwt_debuginfo_load(struct hwt_debuginfo *info, const char *path);

/* The build-id (size 0 when the file has none). */
const uint8_t *hwt_debuginfo_build_id(const struct hwt_debuginfo *info, size_t *size);
/* 1 when the ELF file has a .symtab (not stripped). */
int hwt_debuginfo_has_symtab(const struct hwt_debuginfo *info);
/* A file the debug link named that was not used (its CRC32 is not the link's), or NULL. */
const char *hwt_debuginfo_crc_mismatch(const struct hwt_debuginfo *info);

/* Line spans sorted by begin, end, row order; non-empty ones do not overlap. */
const struct hwt_line_span *hwt_debuginfo_spans(const struct hwt_debuginfo *info, size_t *count);
/* Source file names (lexically normalised absolute paths when DWARF allows). */
size_t hwt_debuginfo_file_count(const struct hwt_debuginfo *info);
const char *hwt_debuginfo_file(const struct hwt_debuginfo *info, size_t i);
/* Functions with code, sorted by entry. */
const struct hwt_function *hwt_debuginfo_functions(const struct hwt_debuginfo *info,
						   size_t *count);

/* The file's ELF e_machine (EM_X86_64, EM_AARCH64...): how to decode its code. */
unsigned hwt_debuginfo_machine(const struct hwt_debuginfo *info);

/*
 * The code bytes at virtual address vaddr, as far as the segment holding
 * it goes in the file (*avail bytes), or NULL.
 */
const uint8_t *hwt_debuginfo_code(const struct hwt_debuginfo *info, uint64_t vaddr,
				  size_t *avail);

/* ----- Coverage of a run ------------------------------------------------- */

/*
 * One executed instruction (the profile's per-instruction view reduced to
 * what coverage needs). Sorted by vaddr.
 */
struct hwt_cov_insn {
	uint64_t vaddr;
	uint64_t count;       /* times it ran */
	uint64_t taken;       /* conditional branches: times taken */
	uint64_t not_taken;   /* conditional branches: times not taken */
};

struct hwt_coverage;

struct hwt_coverage *hwt_coverage_alloc(void);
void hwt_coverage_free(struct hwt_coverage *cov);

/*
 * Adds the coverage of one image: insns are its executed instructions
 * (sorted by vaddr, n of them), info its debug information. Lines, functions
 * and branches of every source file the image's DWARF names are added,
 * executed or not.
 */
int hwt_coverage_add(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
		     const struct hwt_cov_insn *insns, size_t n);

/*
 * Where the coverage's warnings go (images left out, source files not
 * found or edited since the build, ...), as they are found. Without one
 * they are dropped.
 */
void hwt_coverage_set_warn(struct hwt_coverage *cov, const struct hwt_warn_sink *sink);
/* Hands a warning (printf style) to the coverage's sink. 0 or -hle_nomem. */
int hwt_coverage_warn(struct hwt_coverage *cov, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The source files seen so far (in no particular order). */
size_t hwt_coverage_source_count(const struct hwt_coverage *cov);
const char *hwt_coverage_source_path(const struct hwt_coverage *cov, size_t i);
/* Lines (DA) of source i. */
int hwt_coverage_source_lines(const struct hwt_coverage *cov, size_t i, uint64_t *found);
/* Leaves source i out of what hwt_coverage_write_lcov writes. */
int hwt_coverage_source_drop(struct hwt_coverage *cov, size_t i);

/* ----- Writing ----------------------------------------------------------- */

struct hwt_lcov_totals {
	uint64_t files;
	uint64_t lines_found, lines_hit;
	uint64_t functions_found, functions_hit;
	uint64_t branches_found, branches_hit;
};

struct hwt_lcov_filter {
	/* Glob patterns (fnmatch, '*' crosses '/') on source paths: a file is
	   written when it matches some include (or there are none) and no
	   exclude. */
	const char *const *include;
	size_t includes;
	const char *const *exclude;
	size_t excludes;
};

/*
 * Writes the lcov tracefile (test name test_name, may be NULL) for every
 * source file that passes filter (NULL: all), sorted by path. Fills
 * totals when not NULL. Returns 0 or -hle_io.
 */
int hwt_coverage_write_lcov(const struct hwt_coverage *cov, FILE *file, const char *test_name,
			    const struct hwt_lcov_filter *filter,
			    struct hwt_lcov_totals *totals);

/* 1 when path passes the filter. */
int hwt_lcov_filter_match(const struct hwt_lcov_filter *filter, const char *path);

/* ----- Records one at a time (lcov_read.c, tests) ------------------------ */

/* The index of source file path, added (with nothing in it) when new; -hle_nomem. */
long hwt_coverage_source_add(struct hwt_coverage *cov, const char *path);
/* DA: line of source i exists; count adds to its count. */
int hwt_coverage_source_add_line(struct hwt_coverage *cov, size_t i, uint32_t line,
				 uint64_t count);
/* FN/FNDA: function name of source i; the first non-zero start line given
   for a name is kept (0: not known yet), count adds. */
int hwt_coverage_source_add_function(struct hwt_coverage *cov, size_t i, const char *name,
				     uint32_t line, uint64_t count);
/* BRDA: branch of block at line of source i, executed or not ('-'); the
   same (line, block, branch) given again merges when the files are read. */
int hwt_coverage_source_add_branch(struct hwt_coverage *cov, size_t i, uint32_t line,
				   uint32_t block, uint32_t branch, int executed,
				   uint64_t taken);

/*
 * Reads an lcov tracefile (lcov 1.x records: TN, SF, FN, FNDA, BRDA, DA,
 * end_of_record; the counts FNF, FNH, BRF, BRH, LF, LH and VER are
 * skipped) into cov, adding to what is there: a source file in several
 * records, or in cov already, gets the sum. Returns 0, -hle_io, -hle_nomem,
 * or -hle_syntax with *bad_line (when not NULL) the number of the first
 * line that is not a record.
 */
int hwt_coverage_read_lcov(struct hwt_coverage *cov, FILE *file, size_t *bad_line);

/* ----- The coverage, file by file: what every format writes ------------- */

struct hwt_cov_line {
	uint32_t line;
	uint64_t count;
};

struct hwt_cov_function {
	const char *name;
	uint32_t line;
	uint64_t count;       /* calls */
};

struct hwt_cov_branch {
	uint32_t line, block, branch;
	int executed;         /* 0: its instruction never ran ('-') */
	uint64_t taken;
};

/* Hit: a line or a function with a count above 0, a branch executed and taken. */
struct hwt_cov_file {
	const char *path;
	const struct hwt_cov_line *lines;          /* by line number */
	size_t nlines;
	const struct hwt_cov_function *functions;  /* by line, then name */
	size_t nfunctions;
	const struct hwt_cov_branch *branches;     /* by line, block, branch; one of each */
	size_t nbranches;
	struct hwt_lcov_totals totals;             /* of this file (files: 1) */
};

struct hwt_cov_files {
	const struct hwt_cov_file *file;           /* sorted by path */
	size_t count;
	struct hwt_lcov_totals totals;             /* of them all */
};

/*
 * The source files of cov that pass filter (NULL: all), have a line or a
 * function and were not dropped: into *files (hwt_cov_files_free frees
 * it). Paths and names point into cov, which must outlive *files and not
 * change meanwhile. Returns 0 or -hle_nomem.
 */
int hwt_coverage_files(const struct hwt_coverage *cov, const struct hwt_lcov_filter *filter,
		       struct hwt_cov_files **files);
void hwt_cov_files_free(struct hwt_cov_files *files);

/* ----- Formats (lcov_write.c, cobertura.c, json_summary.c, sonarqube.c) --- */

enum hwt_cov_format {
	hwt_cov_lcov,          /* lcov tracefile (genhtml, Codecov, Coveralls) */
	hwt_cov_cobertura,     /* Cobertura XML (GitLab, Jenkins, Azure DevOps) */
	hwt_cov_json_summary,  /* totals per file and overall, JSON (gcovr's keys) */
	hwt_cov_sonarqube,     /* SonarQube's generic coverage XML */
};

/* "lcov", "cobertura", "json", "sonarqube". */
const char *hwt_cov_format_name(enum hwt_cov_format format);
/* The format named name (as hwt_cov_format_name says it), or -1. */
int hwt_cov_format_from_name(const char *name);
/* By the file name: *sonarqube.xml SonarQube, other *.xml Cobertura,
   *.json JSON summary, anything else lcov. */
enum hwt_cov_format hwt_cov_format_from_path(const char *path);

/*
 * One test's coverage (--per-test), for the formats that have a place for
 * tests: lcov (a TN section each) and the JSON summary (a "tests" entry
 * each). Cobertura and SonarQube have none and write the whole run.
 */
struct hwt_cov_test {
	const char *name;      /* as the test is named (CTest's name); NULL: the
				  code that ran outside every test */
	const char *tn;        /* its lcov TN (letters, digits and '_') */
	const struct hwt_cov_files *files;
};

struct hwt_cov_write_options {
	const char *test_name; /* lcov TN (NULL: empty) */
	/* Absolute directory that the XML and JSON formats name paths relative
	   to (paths outside it stay absolute), or NULL: all absolute. */
	const char *root;
	long long timestamp;   /* Cobertura's, seconds since 1970 */
	const char *producer;  /* Cobertura's version attribute ("hwt 0.1.0") */
	/* Per test: lcov writes these sections instead of files (which the
	   other formats write, the sum of them); the JSON summary adds them. */
	const struct hwt_cov_test *tests;
	size_t ntests;
};

/* Writes files in format to file. options may be NULL. 0 or -hle_io. */
int hwt_cov_files_write(const struct hwt_cov_files *files, enum hwt_cov_format format,
			const struct hwt_cov_write_options *options, FILE *file);

/* ----- The coverage of a profile (profile_images.c) ------------------------ */

struct hwt_profile;

struct hwt_image_cache;

struct hwt_lcov_profile_options {
	int system;                  /* report system images (libc, ...) with debug info too */
	int verbose;                 /* also warn about system images left out */
	const char *const *debug_dirs; /* where separate debug files are (NULL-terminated;
	                                  NULL: /usr/lib/debug): hwt_debuginfo_load_dirs */
	/* What was read and worked out before, kept for the next profile of the
	   same images (per-test coverage adds a profile per test); NULL: none. */
	struct hwt_image_cache *cache;
};

/*
 * What the coverages of one run's profiles share (the whole run's, then
 * each test's), kept until freed: per image, its debug information, the
 * analysis of its code that counts do not change, and the instructions
 * that ran in it in the first profile added (so that a later profile's
 * blocks are counted from them, not decoded again from the file).
 */
struct hwt_image_cache *hwt_image_cache_alloc(void);
void hwt_image_cache_free(struct hwt_image_cache *cache);
/* Images added so far whose executed instructions were counted from the
   cache's, and decoded from their files. */
void hwt_image_cache_counts(const struct hwt_image_cache *cache, size_t *counted,
			    size_t *decoded);

/*
 * Adds every image of profile (converters/profile) to cov, by path: its
 * executed instructions with the DWARF of its file. Images without debug
 * info, deleted or replaced since the run, or with undecoded trace get a
 * warning in cov's list instead (system images only when verbose); system
 * images are left out unless options->system. options may be NULL.
 * Returns 0, or a negative hwt_lcov_error with *failed (when not NULL) the
 * index of the image it failed on (SIZE_MAX: none, out of memory).
 */
int hwt_coverage_add_profile(struct hwt_coverage *cov, const struct hwt_profile *profile,
			     const struct hwt_lcov_profile_options *options, size_t *failed);

/*
 * Source files that pass filter but cannot be read (deleted, or named
 * relative to a build directory that is gone) would stop genhtml: leaves
 * them out, each with a warning naming it and its lines (ten, then one for
 * the rest).
 */
void hwt_coverage_drop_unreadable(struct hwt_coverage *cov, const struct hwt_lcov_filter *filter);

/*
 * Checks the source files that pass filter (NULL: all) and can be read
 * against their text, as gcov and lcov do:
 *  - a source file shorter than its line table says (a line past its last
 *    one), or newer than the image its lines came from (hwt_coverage_add_
 *    profile knows the images), was edited since the build: one warning
 *    naming it and the image; lines, functions and branches past its end
 *    are left out;
 *  - when markers, its exclusion markers (LCOV_EXCL_LINE, LCOV_EXCL_START/
 *    STOP, LCOV_EXCL_BR_*, GCOVR_EXCL_*: docs/hwt-cov.md) leave out lines,
 *    branches and functions, as lcov and gcovr do; markers that do not pair
 *    get a warning.
 * Returns 0 or -hle_nomem.
 */
int hwt_coverage_check_sources(struct hwt_coverage *cov, const struct hwt_lcov_filter *filter,
			       int markers);

#ifdef __cplusplus
}
#endif

#endif /* HWT_LCOV_H */
