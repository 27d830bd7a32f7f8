/*
 * The DT_NEEDED closure of an executable, resolved as ld.so resolves it
 * (glibc's order), so that the selection rule can look at the libraries a
 * process will load before it runs (needed.h, docs/select.md).
 *
 * Everything lives in one struct walk on the caller's stack: the objects
 * found so far and a pool for their names, paths and search lists (some
 * 16 KiB of stack in all, -fstack-usage says). Files are read with pread,
 * /etc/ld.so.cache is mapped read-only for the lookup and unmapped before
 * returning. Limits (HWT_NEEDED_*) bound the work; anything malformed ends
 * the walk with "none found".
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "needed.h"

#define POOL_SIZE   6144       /* names, paths, search lists of up to 64 objects */
#define NONE        0xffffu
#define MAX_NEEDED  64         /* DT_NEEDED entries read per object */
#define MAX_LOADS   16
#define MAX_PHDRS   256
#define MAX_DYNS    2048
#define NAME_LEN    256        /* longest DT_NEEDED name */
#define CACHE_MAX   (16u << 20)
#define HEAD_SIZE   1024       /* first bytes of a file: the ELF header and most program headers */

/* Debian's ld.so: $LIB is the multiarch library directory. */
#define DST_LIB "lib/x86_64-linux-gnu"

static const char *const default_dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					    "/lib", "/usr/lib" };

struct object {
	uint16_t name;     /* pool offsets, or NONE: the DT_NEEDED name (NONE: the executable) */
	uint16_t path;     /* where it was found */
	uint16_t rpath;    /* its DT_RPATH and DT_RUNPATH as written */
	uint16_t runpath;
	int16_t parent;    /* the object whose DT_NEEDED named it; -1: the executable */
	uint8_t depth;
	uint8_t nodeflib;  /* DF_1_NODEFLIB: no cache, no default directories */
};

struct walk {
	struct object obj[HWT_NEEDED_MAX_LIBS + 1];
	unsigned n;
	char pool[POOL_SIZE];
	size_t used;
	unsigned char head[HEAD_SIZE]; /* of the object being read */
	size_t head_len;
	char dir[HWT_NEEDED_PATH_MAX];      /* the last directory made canonical, */
	char dir_real[HWT_NEEDED_PATH_MAX]; /* and its canonical form */
	uint16_t interp;             /* pool: base name of the executable's PT_INTERP, or NONE */
	const char *ld_library_path; /* from the exec's environment, or NULL */
	const char *platform;
	const unsigned char *cache;  /* /etc/ld.so.cache, mapped on first use */
	size_t cache_size;
	int cache_tried;
	unsigned tries;              /* candidate files opened or looked for */
};

/* What the dynamic section of one object says. */
struct dynamic {
	uint64_t strtab_off, strsz;  /* .dynstr: file offset and size */
	uint64_t needed[MAX_NEEDED];
	unsigned nneeded;
	int64_t rpath, runpath;      /* string offsets, or -1 */
	int nodeflib;
	uint64_t interp_off, interp_size; /* PT_INTERP, or size 0 */
};

static uint16_t store(struct walk *w, const char *s, size_t n)
{
	uint16_t at = (uint16_t)w->used;

	if (n >= POOL_SIZE - w->used)
		return NONE;
	memcpy(w->pool + w->used, s, n);
	w->pool[w->used + n] = '\0';
	w->used += n + 1;
	return at;
}

static const char *pool(const struct walk *w, uint16_t at)
{
	return at == NONE ? NULL : w->pool + at;
}

int hwt_elf_header_is_x86_64(const Elf64_Ehdr *eh)
{
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_machine == EM_X86_64 &&
	       eh->e_phentsize == sizeof(Elf64_Phdr);
}

/* Reads the first bytes of the file into w->head; 1 when they start an x86-64 ELF header. */
static int read_head(struct walk *w, int fd, Elf64_Ehdr *eh)
{
	ssize_t got = pread(fd, w->head, sizeof(w->head), 0);

	w->head_len = got > 0 ? (size_t)got : 0;
	if (w->head_len < sizeof(*eh))
		return 0;
	memcpy(eh, w->head, sizeof(*eh));
	return hwt_elf_header_is_x86_64(eh);
}

/* A library candidate: open it when it is a loadable x86-64 ELF object (ld.so skips others). */
static int try_file(struct walk *w, const char *path)
{
	Elf64_Ehdr eh;
	int fd;

	if (++w->tries > HWT_NEEDED_MAX_TRIES)
		return -1; /* long search lists times many libraries: give up */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block us */
	if (fd < 0)
		return -1;
	if (!read_head(w, fd, &eh) || eh.e_type != ET_DYN) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Reads the dynamic section of the object open at fd, whose first bytes
 * are in w->head. 0 on success; -1 when there is none (static) or it does
 * not parse.
 */
static int read_dynamic(const struct walk *w, int fd, struct dynamic *d)
{
	struct { uint64_t vaddr, off, size; } loads[MAX_LOADS];
	unsigned nloads = 0;
	uint64_t dyn_off = 0, dyn_size = 0, strtab = 0;
	int have_dyn = 0, have_strtab = 0;
	Elf64_Ehdr eh;

	memset(d, 0, sizeof(*d));
	d->rpath = d->runpath = -1;
	if (w->head_len < sizeof(eh))
		return -1;
	memcpy(&eh, w->head, sizeof(eh));
	if (eh.e_phnum > MAX_PHDRS)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i += 16) {
		Elf64_Phdr ph[16];
		unsigned k = eh.e_phnum - i < 16 ? eh.e_phnum - i : 16;
		uint64_t at = eh.e_phoff + i * sizeof(ph[0]), len = k * sizeof(ph[0]);

		if (at < w->head_len && len <= w->head_len - at)
			memcpy(ph, w->head + at, len); /* usually: they follow the ELF header */
		else if (pread(fd, ph, len, (off_t)at) != (ssize_t)len)
			return -1;
		for (unsigned j = 0; j < k; j++) {
			if (ph[j].p_type == PT_DYNAMIC) {
				dyn_off = ph[j].p_offset;
				dyn_size = ph[j].p_filesz;
				have_dyn = 1;
			} else if (ph[j].p_type == PT_INTERP) {
				d->interp_off = ph[j].p_offset;
				d->interp_size = ph[j].p_filesz;
			} else if (ph[j].p_type == PT_LOAD && nloads < MAX_LOADS) {
				loads[nloads].vaddr = ph[j].p_vaddr;
				loads[nloads].off = ph[j].p_offset;
				loads[nloads].size = ph[j].p_filesz;
				nloads++;
			}
		}
	}
	if (!have_dyn)
		return -1;
	for (uint64_t at = 0; at < dyn_size && at < MAX_DYNS * sizeof(Elf64_Dyn);) {
		Elf64_Dyn dyn[32];
		ssize_t got = pread(fd, dyn, sizeof(dyn), (off_t)(dyn_off + at));
		unsigned k;

		if (got < (ssize_t)sizeof(dyn[0]))
			return -1;
		k = (unsigned)((size_t)got / sizeof(dyn[0]));
		if (k > (dyn_size - at) / sizeof(dyn[0]))
			k = (unsigned)((dyn_size - at) / sizeof(dyn[0]));
		if (k == 0)
			break;
		for (unsigned j = 0; j < k; j++) {
			switch (dyn[j].d_tag) {
			case DT_NULL:
				goto done;
			case DT_NEEDED:
				if (d->nneeded < MAX_NEEDED)
					d->needed[d->nneeded++] = dyn[j].d_un.d_val;
				break;
			case DT_STRTAB:
				strtab = dyn[j].d_un.d_ptr;
				have_strtab = 1;
				break;
			case DT_STRSZ:
				d->strsz = dyn[j].d_un.d_val;
				break;
			case DT_RPATH:
				d->rpath = (int64_t)(dyn[j].d_un.d_val & INT64_MAX);
				break;
			case DT_RUNPATH:
				d->runpath = (int64_t)(dyn[j].d_un.d_val & INT64_MAX);
				break;
			case DT_FLAGS_1:
				d->nodeflib = (dyn[j].d_un.d_val & DF_1_NODEFLIB) != 0;
				break;
			}
		}
		at += (uint64_t)k * sizeof(dyn[0]);
	}
done:
	if (!have_strtab)
		return -1;
	/* DT_STRTAB is an address: the file offset through the PT_LOAD holding it. */
	for (unsigned i = 0; i < nloads; i++) {
		if (strtab >= loads[i].vaddr && strtab - loads[i].vaddr < loads[i].size) {
			d->strtab_off = strtab - loads[i].vaddr + loads[i].off;
			return 0;
		}
	}
	return -1;
}

/* .dynstr through a window of its bytes: the names of an object mostly cost one pread. */
struct strings {
	char buf[HWT_NEEDED_PATH_MAX];
	uint64_t at;   /* .dynstr offset of buf[0] */
	size_t len;
};

/* The .dynstr string at offset at, or NULL when out of bounds or longer than the window. */
static const char *read_string(int fd, const struct dynamic *d, struct strings *win, uint64_t at)
{
	size_t n;
	ssize_t got;

	if (at >= d->strsz)
		return NULL;
	if (at >= win->at && at - win->at < win->len &&
	    memchr(win->buf + (at - win->at), '\0', win->len - (size_t)(at - win->at)))
		return win->buf + (at - win->at);
	n = d->strsz - at < sizeof(win->buf) ? (size_t)(d->strsz - at) : sizeof(win->buf);
	got = pread(fd, win->buf, n, (off_t)(d->strtab_off + at));
	win->at = at;
	win->len = got > 0 ? (size_t)got : 0;
	if (!win->len || !memchr(win->buf, '\0', win->len))
		return NULL;
	return win->buf;
}

/* Length of the dynamic string token name at s ("$NAME" or "${NAME}"), or 0. */
static size_t dst(const char *s, size_t n, const char *name)
{
	size_t len = strlen(name);

	if (n > len + 2 && s[1] == '{' && memcmp(s + 2, name, len) == 0 && s[len + 2] == '}')
		return len + 3;
	if (n > len && memcmp(s + 1, name, len) == 0 &&
	    (n == len + 1 || !(s[len + 1] == '_' || (s[len + 1] >= 'A' && s[len + 1] <= 'Z') ||
			       (s[len + 1] >= 'a' && s[len + 1] <= 'z') ||
			       (s[len + 1] >= '0' && s[len + 1] <= '9'))))
		return len + 1;
	return 0;
}

/*
 * n bytes at s with $ORIGIN (the directory of owner), $LIB and $PLATFORM
 * expanded into out. -1 when it does not fit.
 */
static int expand(const struct walk *w, const char *s, size_t n, const char *owner, char *out,
		  size_t size)
{
	size_t at = 0;

	for (size_t i = 0; i < n;) {
		const char *value = NULL;
		size_t value_len = 0, skip;

		if (s[i] == '$' && (skip = dst(s + i, n - i, "ORIGIN")) != 0) {
			const char *slash = strrchr(owner, '/');

			value = slash ? owner : ".";
			value_len = slash ? (size_t)(slash - owner) : 1;
			if (slash == owner)
				value_len = 1; /* "/" */
		} else if (s[i] == '$' && (skip = dst(s + i, n - i, "LIB")) != 0) {
			value = DST_LIB;
			value_len = strlen(value);
		} else if (s[i] == '$' && (skip = dst(s + i, n - i, "PLATFORM")) != 0) {
			value = w->platform;
			value_len = strlen(value);
		} else {
			skip = 1;
		}
		if (!value) {
			value = s + i;
			value_len = 1;
		}
		if (value_len >= size - at)
			return -1;
		memcpy(out + at, value, value_len);
		at += value_len;
		i += skip;
	}
	out[at] = '\0';
	return 0;
}

/* dir/name into out, and open it. */
static int try_in(struct walk *w, const char *dir, size_t dir_len, const char *name, char *out,
		  size_t size)
{
	size_t name_len = strlen(name);

	if (dir_len == 0) { /* an empty entry is the current directory */
		dir = ".";
		dir_len = 1;
	}
	while (dir_len > 1 && dir[dir_len - 1] == '/')
		dir_len--;
	if (dir_len + 1 + name_len >= size)
		return -1;
	memcpy(out, dir, dir_len);
	out[dir_len] = '/';
	memcpy(out + dir_len + 1, name, name_len + 1);
	return try_file(w, out);
}

/* Each directory of a search list (separated by one of seps), DSTs relative to owner. */
static int search_list(struct walk *w, const char *list, const char *seps, const char *owner,
		       const char *name, char *out, size_t size)
{
	char dir[HWT_NEEDED_PATH_MAX];

	while (list) {
		size_t n = strcspn(list, seps);
		int fd;

		if (expand(w, list, n, owner, dir, sizeof(dir)) == 0 &&
		    (fd = try_in(w, dir, strlen(dir), name, out, size)) >= 0)
			return fd;
		list = list[n] ? list + n + 1 : NULL;
	}
	return -1;
}

/* ---- /etc/ld.so.cache (glibc's "new" format, glibc-ld.so.cache1.1) ---- */

#define CACHE_MAGIC     "glibc-ld.so.cache1.1"
#define CACHE_HEADER    48u  /* magic and version, nlibs, len_strings, flags, extension, unused */
#define CACHE_ENTRY     24u  /* flags, key, value, osversion, hwcap */
#define CACHE_X86_64    0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */

static void cache_map(struct walk *w)
{
	struct stat st;
	int fd;
	void *p;

	w->cache_tried = 1;
	fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)CACHE_HEADER && st.st_size < (off_t)CACHE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			if (memcmp(p, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1) == 0) {
				w->cache = p;
				w->cache_size = (size_t)st.st_size;
			} else {
				munmap(p, (size_t)st.st_size);
			}
		}
	}
	close(fd);
}

/* The string at a cache offset, if NUL-terminated inside the file. */
static const char *cache_string(const struct walk *w, uint32_t at)
{
	if (at >= w->cache_size || !memchr(w->cache + at, '\0', w->cache_size - at))
		return NULL;
	return (const char *)w->cache + at;
}

/*
 * The order of the cache's entries (descending by this comparison, which
 * glibc's lookup relies on): runs of digits compare as numbers, a digit
 * sorts after any other character.
 */
static int cache_cmp(const char *a, const char *b)
{
	while (*a) {
		int da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';

		if (da && db) {
			unsigned long va = 0, vb = 0;

			while (*a >= '0' && *a <= '9')
				va = va * 10 + (unsigned long)(*a++ - '0');
			while (*b >= '0' && *b <= '9')
				vb = vb * 10 + (unsigned long)(*b++ - '0');
			if (va != vb)
				return va < vb ? -1 : 1;
		} else if (da != db) {
			return da ? 1 : -1;
		} else if (*a != *b) {
			return (unsigned char)*a - (unsigned char)*b;
		} else {
			a++;
			b++;
		}
	}
	return *b ? -1 : 0;
}

struct cache_entry {
	int32_t flags;
	uint32_t key, value;
	uint64_t hwcap;
};

static int cache_entry(const struct walk *w, uint32_t i, struct cache_entry *e)
{
	const unsigned char *p = w->cache + CACHE_HEADER + (size_t)i * CACHE_ENTRY;

	memcpy(&e->flags, p, 4);
	memcpy(&e->key, p + 4, 4);
	memcpy(&e->value, p + 8, 4);
	memcpy(&e->hwcap, p + 16, 8);
	return cache_string(w, e->key) != NULL;
}

/* name in the cache (binary search, then the entries of the same name): open its path. */
static int cache_lookup(struct walk *w, const char *name, char *out, size_t size)
{
	const char *plain = NULL, *any = NULL, *path;
	struct cache_entry e;
	uint32_t nlibs, lo = 0, hi, i;
	size_t n;
	int found = 0;

	if (!w->cache_tried)
		cache_map(w);
	if (!w->cache)
		return -1;
	memcpy(&nlibs, w->cache + 20, sizeof(nlibs));
	if (nlibs == 0 || nlibs > (w->cache_size - CACHE_HEADER) / CACHE_ENTRY)
		return -1;
	hi = nlibs;
	while (lo < hi) {
		int c;

		i = lo + (hi - lo) / 2;
		if (!cache_entry(w, i, &e))
			return -1;
		c = cache_cmp(name, cache_string(w, e.key));
		if (c == 0) {
			found = 1;
			break;
		}
		if (c < 0)
			lo = i + 1;
		else
			hi = i;
	}
	if (!found)
		return -1;
	while (i > 0 && cache_entry(w, i - 1, &e) && strcmp(cache_string(w, e.key), name) == 0)
		i--;
	for (; i < nlibs && !plain && cache_entry(w, i, &e) &&
	       strcmp(cache_string(w, e.key), name) == 0; i++) {
		if ((e.flags & 0xffff) != CACHE_X86_64 || !(path = cache_string(w, e.value)))
			continue;
		if (e.hwcap == 0)
			plain = path;
		else if (!any)
			any = path; /* a glibc-hwcaps variant: same library, another build */
	}
	path = plain ? plain : any;
	if (!path || (n = strlen(path)) >= size)
		return -1;
	memcpy(out, path, n + 1);
	return try_file(w, out);
}

/* ---- the walk ---- */

/* Finds object i (named by its parent's DT_NEEDED) as ld.so would: its path into out, an fd. */
static int resolve(struct walk *w, unsigned i, char *out, size_t size)
{
	const struct object *loader = &w->obj[w->obj[i].parent];
	const char *name = pool(w, w->obj[i].name);
	int fd = -1;

	if (strchr(name, '/')) {
		if (expand(w, name, strlen(name), pool(w, loader->path), out, size) < 0)
			return -1;
		return try_file(w, out);
	}
	/* The RPATHs of the loader and of the objects that loaded it, unless it has a RUNPATH. */
	if (loader->runpath == NONE) {
		for (int l = w->obj[i].parent; l >= 0 && fd < 0; l = w->obj[l].parent)
			if (w->obj[l].rpath != NONE)
				fd = search_list(w, pool(w, w->obj[l].rpath), ":", pool(w, w->obj[l].path),
						 name, out, size);
	}
	if (fd < 0 && w->ld_library_path)
		fd = search_list(w, w->ld_library_path, ":;", pool(w, w->obj[0].path), name, out, size);
	if (fd < 0 && loader->runpath != NONE)
		fd = search_list(w, pool(w, loader->runpath), ":", pool(w, loader->path), name, out,
				 size);
	if (fd < 0 && !loader->nodeflib)
		fd = cache_lookup(w, name, out, size);
	for (size_t k = 0; fd < 0 && !loader->nodeflib && k < sizeof(default_dirs) / sizeof(default_dirs[0]);
	     k++)
		fd = try_in(w, default_dirs[k], strlen(default_dirs[k]), name, out, size);
	return fd;
}

/* Reads object i's dynamic section: keeps its search lists and queues its DT_NEEDED names. */
static void queue_needed(struct walk *w, unsigned i, int fd)
{
	struct dynamic d;
	struct strings win = { .len = 0 };
	struct object *o = &w->obj[i];
	const char *s;

	if (read_dynamic(w, fd, &d) < 0)
		return;
	/* ld.so ignores DT_RPATH when there is a DT_RUNPATH. */
	if (d.runpath >= 0 && (s = read_string(fd, &d, &win, (uint64_t)d.runpath)) != NULL)
		o->runpath = store(w, s, strlen(s));
	else if (d.runpath < 0 && d.rpath >= 0 && (s = read_string(fd, &d, &win, (uint64_t)d.rpath)))
		o->rpath = store(w, s, strlen(s));
	o->nodeflib = (uint8_t)d.nodeflib;
	/*
	 * The dynamic loader is there before any DT_NEEDED is looked at, and
	 * ld.so does not look for it again: neither does the walk (libc names it).
	 */
	if (i == 0 && d.interp_size > 1 && d.interp_size <= NAME_LEN) {
		char interp[NAME_LEN];

		if (d.interp_off < w->head_len && d.interp_size <= w->head_len - d.interp_off)
			memcpy(interp, w->head + d.interp_off, d.interp_size);
		else if (pread(fd, interp, d.interp_size, (off_t)d.interp_off) != (ssize_t)d.interp_size)
			interp[0] = '\0';
		interp[d.interp_size - 1] = '\0';
		if (interp[0] && (s = strrchr(interp, '/')) != NULL)
			w->interp = store(w, s + 1, strlen(s + 1));
	}
	if (o->depth >= HWT_NEEDED_MAX_DEPTH)
		return;
	for (unsigned k = 0; k < d.nneeded && w->n < HWT_NEEDED_MAX_LIBS + 1; k++) {
		unsigned j;
		uint16_t at;

		if (!(s = read_string(fd, &d, &win, d.needed[k])) || !s[0] || strlen(s) >= NAME_LEN ||
		    (w->interp != NONE && strcmp(s, pool(w, w->interp)) == 0))
			continue;
		for (j = 1; j < w->n; j++) /* already named: ld.so loads a name once */
			if (strcmp(pool(w, w->obj[j].name), s) == 0)
				break;
		if (j < w->n || (at = store(w, s, strlen(s))) == NONE)
			continue;
		w->obj[w->n] = (struct object){ .name = at, .path = NONE, .rpath = NONE,
						.runpath = NONE, .parent = (int16_t)i,
						.depth = (uint8_t)(o->depth + 1) };
		w->n++;
	}
}

/*
 * The canonical path of a library found at path, into real (PATH_MAX
 * bytes). Libraries of one closure mostly share a directory, and their
 * names are mostly links to a file next to them (libz.so.1 ->
 * libz.so.1.2.13): the directory is made canonical once per walk, such
 * links are followed by hand, anything else goes to realpath.
 */
static int canonical(struct walk *w, const char *path, char *real)
{
	const char *slash = strrchr(path, '/');
	char name[NAME_LEN], link[NAME_LEN];
	size_t dir_len, n;

	if (!slash || strlen(slash + 1) >= sizeof(name) || slash - path >= HWT_NEEDED_PATH_MAX)
		return realpath(path, real) ? 0 : -1;
	dir_len = (size_t)(slash - path);
	strcpy(name, slash + 1);
	for (int hops = 0;; hops++) {
		ssize_t got;

		memcpy(real, path, dir_len + 1);
		strcpy(real + dir_len + 1, name);
		got = readlink(real, link, sizeof(link) - 1);
		if (got < 0 && errno == EINVAL)
			break; /* not a link */
		if (got <= 0 || hops == 8 || memchr(link, '/', (size_t)got))
			return realpath(path, real) ? 0 : -1;
		memcpy(name, link, (size_t)got);
		name[got] = '\0';
	}
	if (dir_len == 0)
		dir_len = 1; /* "/" */
	if (strlen(w->dir) != dir_len || memcmp(w->dir, path, dir_len) != 0) {
		memcpy(w->dir, path, dir_len);
		w->dir[dir_len] = '\0';
		if (!realpath(w->dir, real) || strlen(real) >= sizeof(w->dir_real)) {
			w->dir[0] = '\0';
			return realpath(path, real) ? 0 : -1;
		}
		memcpy(w->dir_real, real, strlen(real) + 1);
	}
	n = strlen(w->dir_real);
	if (n + 1 + strlen(name) >= PATH_MAX)
		return -1;
	memcpy(real, w->dir_real, n);
	if (n > 1)
		real[n++] = '/';
	strcpy(real + n, name);
	return 0;
}

static const char *env_value(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

int hwt_needed_find(int exe_fd, const char *exe, char *const envp[], hwt_needed_fn fn, void *ctx,
		    char *found, size_t size)
{
	struct walk w;
	char path[HWT_NEEDED_PATH_MAX], real[PATH_MAX];
	int result = 0;
	Elf64_Ehdr eh;

	w.n = 1;
	w.used = 0;
	w.tries = 0;
	w.dir[0] = '\0';
	w.interp = NONE;
	w.cache = NULL;
	w.cache_size = 0;
	w.cache_tried = 0;
	w.ld_library_path = env_value(envp, "LD_LIBRARY_PATH");
	if (w.ld_library_path && !*w.ld_library_path)
		w.ld_library_path = NULL;
	w.platform = (const char *)getauxval(AT_PLATFORM);
	if (!w.platform)
		w.platform = "x86_64";
	w.obj[0] = (struct object){ .name = NONE, .path = store(&w, exe, strlen(exe)), .rpath = NONE,
				    .runpath = NONE, .parent = -1 };
	if (w.obj[0].path == NONE)
		return 0;
	if (!read_head(&w, exe_fd, &eh))
		return 0;
	queue_needed(&w, 0, exe_fd);
	for (unsigned i = 1; i < w.n && !result; i++) {
		int fd = resolve(&w, i, path, sizeof(path));
		unsigned j;

		if (fd < 0)
			continue;
		for (j = 1; j < i; j++) /* the same file under another name */
			if (w.obj[j].path != NONE && strcmp(pool(&w, w.obj[j].path), path) == 0)
				break;
		if (j == i && (w.obj[i].path = store(&w, path, strlen(path))) != NONE) {
			if (canonical(&w, path, real) == 0 && fn(ctx, real, fd)) {
				result = 1;
				if (found && size) {
					strncpy(found, real, size - 1);
					found[size - 1] = '\0';
				}
			} else {
				queue_needed(&w, i, fd);
			}
		}
		close(fd);
	}
	if (w.cache)
		munmap((void *)w.cache, w.cache_size);
	return result;
}
