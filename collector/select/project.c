/*
 * Whose code an ELF image is: the source files its DWARF compile units
 * name, against the project's root (see project.h, docs/select.md).
 *
 * Only the first DIE of each unit is read (DW_TAG_compile_unit: DW_AT_name
 * and DW_AT_comp_dir), through its abbreviation; the line tables are not
 * (a header a project's file includes does not make a program the
 * project's). A byte scan of the string sections for "ROOT/" would miss
 * the relative names of out-of-tree builds (autotools compiles
 * ../src/x.c) and roots reached through a symbolic link, so the names are
 * resolved as the compiler wrote them. No allocation: this runs in the
 * preloaded library, between vfork and exec too.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_note.h"
#include "project.h"

#define MAX_UNITS 16384
#define NAME_MAX_LEN 1024      /* a compile unit's name or directory, with its NUL */
#define MAX_ABBREVS 4096       /* abbreviations passed over to find a unit's first */

/* DWARF constants this reads (DWARF 5, section 7). */
enum {
	AT_name = 0x03, AT_comp_dir = 0x1b, AT_str_offsets_base = 0x72,
	TAG_compile_unit = 0x11, TAG_partial_unit = 0x3c, TAG_skeleton_unit = 0x4a,
	UT_compile = 1, UT_type = 2, UT_partial = 3, UT_skeleton = 4, UT_split_compile = 5,
	UT_split_type = 6,
};

struct section {
	uint64_t off, size;
	int found, compressed;
};

/* A window on a section of the file: most reads are a few bytes, close together. */
struct reader {
	int fd;
	const struct section *sec;
	uint64_t at;             /* section offset of buf[0] */
	size_t got;
	int bad;                 /* read past the end, or the file failed */
	unsigned char buf[512];
};

static int reader_fill(struct reader *r, uint64_t off, size_t n)
{
	ssize_t got;
	uint64_t len;

	if (off >= r->at && off - r->at + n <= r->got)
		return 0;
	if (off >= r->sec->size || n > r->sec->size - off) {
		r->bad = 1;
		return -1;
	}
	len = r->sec->size - off < sizeof(r->buf) ? r->sec->size - off : sizeof(r->buf);
	got = pread(r->fd, r->buf, len, (off_t)(r->sec->off + off));
	if (got < (ssize_t)n) {
		r->bad = 1;
		r->got = 0;
		return -1;
	}
	r->at = off;
	r->got = (size_t)got;
	return 0;
}

/* n (at most 8) bytes little-endian at *off, which moves past them; 0 when bad. */
static uint64_t read_uint(struct reader *r, uint64_t *off, unsigned n)
{
	uint64_t v = 0;

	if (reader_fill(r, *off, n) < 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->buf[*off - r->at + i] << (8 * i);
	*off += n;
	return v;
}

static uint64_t read_leb(struct reader *r, uint64_t *off)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)read_uint(r, off, 1);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/* The NUL-terminated string at *off into out (NAME_MAX_LEN bytes); *off past it. -1: too long. */
static int read_cstring(struct reader *r, uint64_t *off, char *out)
{
	size_t n = 0;
	char c;

	do {
		c = (char)read_uint(r, off, 1);
		if (r->bad)
			return -1;
		if (n < NAME_MAX_LEN)
			out[n] = c;
		n++;
	} while (c);
	return n <= NAME_MAX_LEN ? 0 : -1;
}

/* The string at offset off of a string section into out (NAME_MAX_LEN bytes); -1 when none. */
static int section_string(int fd, const struct section *s, uint64_t off, char *out)
{
	size_t len;
	ssize_t got;

	if (!s->found || s->compressed || off >= s->size)
		return -1;
	len = s->size - off < NAME_MAX_LEN ? (size_t)(s->size - off) : NAME_MAX_LEN;
	got = pread(fd, out, len, (off_t)(s->off + off));
	if (got <= 0 || !memchr(out, '\0', (size_t)got))
		return -1;
	return 0;
}

struct dwarf {
	int fd;
	struct section info, abbrev, str, line_str, str_offsets;
};

/* The sections by name: each header's name read from .shstrtab. */
static int find_sections(struct dwarf *d)
{
	static const struct {
		const char *name;
		size_t offset;
	} wanted[] = {
		{ ".debug_info", offsetof(struct dwarf, info) },
		{ ".debug_abbrev", offsetof(struct dwarf, abbrev) },
		{ ".debug_str", offsetof(struct dwarf, str) },
		{ ".debug_line_str", offsetof(struct dwarf, line_str) },
		{ ".debug_str_offsets", offsetof(struct dwarf, str_offsets) },
		{ ".zdebug_info", offsetof(struct dwarf, info) },
	};
	Elf64_Ehdr eh;
	Elf64_Shdr shstr;

	if (pread(d->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
		return -1;
	if (pread(d->fd, &shstr, sizeof(shstr),
		  (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(shstr))) != (ssize_t)sizeof(shstr))
		return -1;
	for (unsigned i = 0; i < eh.e_shnum && i < 1024; i += 8) {
		Elf64_Shdr sh[8];
		ssize_t got = pread(d->fd, sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh[0])));
		unsigned k = got > 0 ? (unsigned)((size_t)got / sizeof(sh[0])) : 0;

		if (k > eh.e_shnum - i)
			k = eh.e_shnum - i;
		for (unsigned j = 0; j < k; j++) {
			char name[24];
			ssize_t n;

			if (sh[j].sh_name >= shstr.sh_size || sh[j].sh_type == SHT_NOBITS)
				continue;
			n = pread(d->fd, name, sizeof(name), (off_t)(shstr.sh_offset + sh[j].sh_name));
			if (n <= 0)
				continue;
			name[n < (ssize_t)sizeof(name) ? n : (ssize_t)sizeof(name) - 1] = '\0';
			for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++) {
				struct section *s = (struct section *)((char *)d + wanted[w].offset);

				if (strcmp(name, wanted[w].name) != 0)
					continue;
				s->off = sh[j].sh_offset;
				s->size = sh[j].sh_size;
				s->found = 1;
				s->compressed = (sh[j].sh_flags & SHF_COMPRESSED) || name[1] == 'z';
			}
		}
		if (k < 8)
			break;
	}
	return 0;
}

/* A string attribute as found: inline (copied), or an offset still to resolve. */
struct str_attr {
	unsigned form;           /* 0: absent */
	uint64_t value;
	char text[NAME_MAX_LEN]; /* DW_FORM_string's, then (resolve) any form's */
};

struct unit {
	unsigned version, offset_size, address_size;
	uint64_t str_offsets_base;
	int has_base;
};

/*
 * Passes over (or keeps, for the strings and the base) one attribute value
 * of form at *off. Returns 0, or -1 for a form it does not know.
 */
static int read_value(struct reader *r, uint64_t *off, unsigned form, int64_t implicit,
		      const struct unit *u, uint64_t *value, char *text)
{
	uint64_t n;

	(void)implicit;
	*value = 0;
	switch (form) {
	case 0x01: /* addr */
		*off += u->address_size;
		return 0;
	case 0x03: /* block2 */
		n = read_uint(r, off, 2);
		*off += n;
		return 0;
	case 0x04: /* block4 */
		n = read_uint(r, off, 4);
		*off += n;
		return 0;
	case 0x09: /* block */
	case 0x18: /* exprloc */
		n = read_leb(r, off);
		*off += n;
		return 0;
	case 0x0a: /* block1 */
		n = read_uint(r, off, 1);
		*off += n;
		return 0;
	case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: /* data1 flag ref1 strx1 addrx1 */
		*value = read_uint(r, off, 1);
		return 0;
	case 0x05: case 0x12: case 0x26: case 0x2a: /* data2 ref2 strx2 addrx2 */
		*value = read_uint(r, off, 2);
		return 0;
	case 0x27: case 0x2b: /* strx3 addrx3 */
		*value = read_uint(r, off, 3);
		return 0;
	case 0x06: case 0x13: case 0x1c: case 0x28: case 0x2c: /* data4 ref4 ref_sup4 strx4 addrx4 */
		*value = read_uint(r, off, 4);
		return 0;
	case 0x07: case 0x14: case 0x20: case 0x24: /* data8 ref8 ref_sig8 ref_sup8 */
		*value = read_uint(r, off, 8);
		return 0;
	case 0x1e: /* data16 */
		*off += 16;
		return 0;
	case 0x08: /* string */
		return read_cstring(r, off, text) < 0 ? -1 : 0;
	case 0x0d: /* sdata */
	case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23: /* udata ref_udata strx addrx loclistx rnglistx */
	case 0x1f01: case 0x1f02: /* GNU_addr_index GNU_str_index */
		*value = read_leb(r, off);
		return 0;
	case 0x0e: case 0x17: case 0x1d: case 0x1f: /* strp sec_offset strp_sup line_strp */
	case 0x1f20: case 0x1f21: /* GNU_ref_alt GNU_strp_alt */
		*value = read_uint(r, off, u->offset_size);
		return 0;
	case 0x10: /* ref_addr */
		*value = read_uint(r, off, u->version == 2 ? u->address_size : u->offset_size);
		return 0;
	case 0x19: /* flag_present */
	case 0x21: /* implicit_const: the value is in the abbreviation */
		return 0;
	default:
		return -1;
	}
}

/* A string attribute's text into a->text; -1 when it cannot be had. */
static int resolve(const struct dwarf *d, const struct unit *u, struct str_attr *a)
{
	struct reader r = { .fd = d->fd, .sec = &d->str_offsets };
	char *out = a->text;
	uint64_t at, index;

	switch (a->form) {
	case 0x08:
		return 0;
	case 0x0e:
		return section_string(d->fd, &d->str, a->value, out);
	case 0x1f:
		return section_string(d->fd, &d->line_str, a->value, out);
	case 0x1a: case 0x25: case 0x26: case 0x27: case 0x28:
		if (!d->str_offsets.found || d->str_offsets.compressed)
			return -1;
		index = a->value;
		at = (u->has_base ? u->str_offsets_base : (u->offset_size == 8 ? 16 : 8)) +
		     index * u->offset_size;
		at = read_uint(&r, &at, u->offset_size);
		return r.bad ? -1 : section_string(d->fd, &d->str, at, out);
	default:
		return -1; /* a .dwo's or a dwz file's string: not here */
	}
}

/* Folds "." and ".." and repeated '/' of an absolute path in place. */
static void fold(char *path)
{
	char *in = path, *out = path;

	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		size_t n = strcspn(in, "/");

		if (n == 1 && in[0] == '.') {
			in += 1;
			continue;
		}
		if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
			in += 2;
			continue;
		}
		*out++ = '/';
		memmove(out, in, n);
		out += n;
		in += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The last directory made canonical, and what it became. */
struct memo {
	char dir[NAME_MAX_LEN];
	char real[PATH_MAX];
	int ok;
};

/* 1 when the source at dir/name (name may be absolute) is under root. */
static int source_under(const char *dir, const char *name, const char *root, struct memo *m)
{
	char full[NAME_MAX_LEN];
	size_t dl = strlen(dir), nl = strlen(name);
	char *slash;

	if (!name[0] || name[0] == '<') /* "<artificial>" of LTO */
		return 0;
	if (name[0] == '/') {
		memcpy(full, name, nl + 1);
	} else {
		if (dir[0] != '/' || dl + 1 + nl >= sizeof(full))
			return 0;
		memcpy(full, dir, dl);
		full[dl] = '/';
		memcpy(full + dl + 1, name, nl + 1);
	}
	fold(full);
	if (under(full, root))
		return 1;
	/* Through symbolic links: the directory's canonical path. */
	slash = strrchr(full, '/');
	*slash = '\0';
	if (!full[0])
		return 0;
	if (strcmp(full, m->dir) != 0) {
		memcpy(m->dir, full, strlen(full) + 1);
		m->ok = realpath(full, m->real) != NULL;
	}
	return m->ok && under(m->real, root);
}

enum hwt_project_verdict hwt_select_project_file(int fd, const char *root)
{
	struct dwarf d = { .fd = fd };
	struct reader info = { .fd = fd, .sec = &d.info }, abbrev = { .fd = fd, .sec = &d.abbrev };
	struct str_attr name, comp_dir;
	struct memo memo = { .ok = 0 };
	char scratch[NAME_MAX_LEN];
	uint64_t off = 0;

	if (find_sections(&d) < 0 || !d.info.found || !d.abbrev.found)
		return HWT_PROJECT_OUTSIDE;
	if (d.info.compressed || d.abbrev.compressed)
		return HWT_PROJECT_UNREADABLE;
	for (unsigned n = 0; n < MAX_UNITS && off + 11 <= d.info.size; n++) {
		struct unit u = { 0 };
		uint64_t p = off, len, end, abbr, code, tag;
		unsigned type = UT_compile;
		int known = 1;

		len = read_uint(&info, &p, 4);
		u.offset_size = 4;
		if (len == 0xffffffff) {
			len = read_uint(&info, &p, 8);
			u.offset_size = 8;
		} else if (len >= 0xfffffff0) {
			break;
		}
		if (info.bad || len > d.info.size - p)
			break;
		end = p + len;
		u.version = (unsigned)read_uint(&info, &p, 2);
		if (u.version < 2 || u.version > 5) {
			off = end;
			continue;
		}
		if (u.version == 5) {
			type = (unsigned)read_uint(&info, &p, 1);
			u.address_size = (unsigned)read_uint(&info, &p, 1);
			abbr = read_uint(&info, &p, u.offset_size);
			if (type == UT_skeleton || type == UT_split_compile)
				p += 8; /* dwo_id */
		} else {
			abbr = read_uint(&info, &p, u.offset_size);
			u.address_size = (unsigned)read_uint(&info, &p, 1);
		}
		if (info.bad)
			break;
		off = end;
		if (type != UT_compile && type != UT_partial && type != UT_skeleton)
			continue; /* type units name no source */
		code = read_leb(&info, &p);
		/* Its abbreviation: code, tag, children, then (attribute, form) pairs. */
		uint64_t a = abbr;
		int found = 0;

		tag = 0;
		for (unsigned k = 0; k < MAX_ABBREVS && !found; k++) {
			uint64_t c = read_leb(&abbrev, &a), at, form;

			if (abbrev.bad || c == 0)
				break;
			tag = read_leb(&abbrev, &a);
			a += 1; /* children */
			if (c == code) {
				found = 1;
				break;
			}
			do {
				at = read_leb(&abbrev, &a);
				form = read_leb(&abbrev, &a);
				if (form == 0x21)
					(void)read_leb(&abbrev, &a);
			} while (!abbrev.bad && (at || form));
		}
		if (abbrev.bad) {
			abbrev.bad = 0;
			continue;
		}
		if (!found || (tag != TAG_compile_unit && tag != TAG_partial_unit &&
			       tag != TAG_skeleton_unit))
			continue;
		name.form = comp_dir.form = 0;
		for (;;) {
			uint64_t at = read_leb(&abbrev, &a), form = read_leb(&abbrev, &a), value;
			int64_t implicit = 0;
			struct str_attr *keep;

			if (abbrev.bad || (!at && !form))
				break;
			if (form == 0x21)
				implicit = (int64_t)read_leb(&abbrev, &a);
			if (form == 0x16) /* indirect: the form is in the DIE */
				form = read_leb(&info, &p);
			keep = at == AT_name ? &name : at == AT_comp_dir ? &comp_dir : NULL;
			if (read_value(&info, &p, (unsigned)form, implicit, &u, &value,
				       keep ? keep->text : scratch) < 0 || info.bad) {
				known = 0;
				break;
			}
			if (keep) {
				keep->form = (unsigned)form;
				keep->value = value;
			}
			if (at == AT_str_offsets_base) {
				u.str_offsets_base = value;
				u.has_base = 1;
			}
		}
		info.bad = abbrev.bad = 0;
		if (!known || !name.form || resolve(&d, &u, &name) < 0)
			continue;
		if (!comp_dir.form || resolve(&d, &u, &comp_dir) < 0)
			comp_dir.text[0] = '\0';
		if (source_under(comp_dir.text, name.text, root, &memo))
			return HWT_PROJECT_IN;
	}
	return HWT_PROJECT_OUTSIDE;
}

/* ---- the verdicts kept by build-id ---- */

static int read_at(void *fd, uint64_t off, void *buf, size_t len)
{
	return pread(*(int *)fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* cache_dir/<build-id in hex> into path (PATH_MAX bytes); -1 when there is no build-id. */
static int cache_path(const char *cache_dir, int fd, char *path)
{
	uint8_t id[64];
	uint32_t size = hwt_elf_file_build_id(read_at, &fd, id, sizeof(id));
	size_t n = strlen(cache_dir);

	if (size < 2 || size > sizeof(id) || n + 2 + 2 * size >= PATH_MAX)
		return -1;
	memcpy(path, cache_dir, n);
	path[n++] = '/';
	for (uint32_t k = 0; k < size; k++) {
		path[n++] = "0123456789abcdef"[id[k] >> 4];
		path[n++] = "0123456789abcdef"[id[k] & 15];
	}
	path[n] = '\0';
	return 0;
}

int hwt_select_project_cached(const char *cache_dir, int fd)
{
	char path[PATH_MAX], v;
	int f;
	ssize_t n;

	if (!cache_dir || cache_path(cache_dir, fd, path) < 0)
		return -1;
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, &v, 1);
	close(f);
	if (n != 1 || v < '0' || v > '3')
		return -1; /* being written, or not ours */
	return v - '0';
}

void hwt_select_project_keep(const char *cache_dir, int fd, enum hwt_project_verdict v)
{
	char path[PATH_MAX], c = (char)('0' + v);
	int f;

	if (!cache_dir || cache_path(cache_dir, fd, path) < 0)
		return;
	f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (f < 0)
		return;
	if (write(f, &c, 1) != 1)
		(void)unlink(path);
	close(f);
}
