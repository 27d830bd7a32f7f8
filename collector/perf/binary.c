/*
 * Where a file that a MMAP2 record names is now (docs/perf.md, "Binaries"):
 * under --symfs, at its path, or in perf's build-id cache
 * ($PERF_BUILDID_DIR or ~/.debug: .build-id/XX/REST, a link to the copy's
 * directory holding "elf", or to the copy itself). A file whose build-id
 * differs from the recording's is not it. The vDSO (perf keeps it in the
 * cache) is copied into the bundle's images/, as the software units do.
 * A file found nowhere keeps its recorded path: the decoder names it with
 * the trace it cost.
 */
#include "import_int.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_note.h"

static void hex(char *out, const uint8_t *id, uint8_t n)
{
	for (uint8_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/*
 * The GNU build-id of the 64-bit ELF file path (its PT_NOTE segments) into
 * id: its size (0: none), or -1 when path is no such ELF file.
 */
static int read_build_id(const char *path, uint8_t *id)
{
	Elf64_Ehdr eh;
	uint32_t found = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		goto out;
	rc = 0;
	for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
		Elf64_Phdr ph;
		uint8_t notes[1024];
		const uint8_t *desc;
		size_t len;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph) ||
		    ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(notes) ? (size_t)ph.p_filesz : sizeof(notes);
		if (pread(fd, notes, len, (off_t)ph.p_offset) != (ssize_t)len)
			continue;
		found = hwt_elf_note_build_id(notes, len, 20, &desc);
		if (found)
			memcpy(id, desc, found);
	}
	rc = (int)found;
out:
	close(fd);
	return rc;
}

/* 1 when path is a file with this build-id (any ELF file when size is 0);
   fills the build-id in when the recording did not say it. */
static int is_it(const char *path, uint8_t *id, uint8_t *size)
{
	uint8_t found[20];
	struct stat st;
	int n;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	n = read_build_id(path, found);
	if (n < 0)
		return 0;
	if (!*size) {
		if (n > 0) {
			memcpy(id, found, (size_t)n);
			*size = (uint8_t)n;
		}
		return 1;
	}
	return n == *size && !memcmp(found, id, *size);
}

static char *cache_dir(const struct import *im)
{
	const char *dir = im->opt ? im->opt->buildid_dir : NULL;
	const char *home;

	if (dir)
		return strdup(dir);
	if ((dir = getenv("PERF_BUILDID_DIR")) && *dir)
		return strdup(dir);
	home = getenv("HOME");
	if (!home)
		return NULL;
	{
		char *p = malloc(strlen(home) + 8);

		if (p)
			sprintf(p, "%s/.debug", home);
		return p;
	}
}

/* The cache's copy of the file with this build-id, or NULL. */
static char *from_cache(const struct import *im, const char *filename, const uint8_t *id,
			uint8_t size)
{
	char *dir = cache_dir(im), *path;
	char h[41];
	uint8_t want_size = size, want[20];
	size_t n;

	if (!dir || !size)
		goto none;
	hex(h, id, size);
	n = strlen(dir) + strlen(filename) + 2 * sizeof(h) + 32;
	path = malloc(n);
	if (!path)
		goto none;
	memcpy(want, id, size);
	snprintf(path, n, "%s/.build-id/%.2s/%s/elf", dir, h, h + 2);
	if (is_it(path, want, &want_size))
		goto found;
	snprintf(path, n, "%s/.build-id/%.2s/%s", dir, h, h + 2);
	if (is_it(path, want, &want_size))
		goto found;
	snprintf(path, n, "%s%s%s/%s/elf", dir, filename[0] == '/' ? "" : "/", filename, h);
	if (is_it(path, want, &want_size))
		goto found;
	/* The vDSO's copy is a file named vdso. */
	snprintf(path, n, "%s/%s/%s/vdso", dir, filename, h);
	if (is_it(path, want, &want_size))
		goto found;
	free(path);
none:
	free(dir);
	return NULL;
found:
	free(dir);
	return path;
}

/* The recording's build-id of filename from the header's build-id list. */
static void build_id_of(const struct import *im, const char *filename, uint8_t *id,
			uint8_t *size)
{
	for (size_t i = 0; i < hwt_perf_build_id_count(im->reader); i++) {
		const struct hwt_perf_build_id *b = hwt_perf_build_id_at(im->reader, i);

		if (!strcmp(b->filename, filename) && b->size <= 20) {
			memcpy(id, b->build_id, b->size);
			*size = b->size;
			return;
		}
	}
}

/* Copies the vDSO into the bundle: images/vdso-BUILDID.so, its bundle path. */
static char *copy_vdso(struct import *im, const char *from, const uint8_t *id, uint8_t size)
{
	char h[41], name[64], *to, *rel;
	int in, out;
	char buf[8192];
	ssize_t n;

	hex(h, id, size);
	snprintf(name, sizeof(name), "images/vdso-%s.so", h);
	to = malloc(strlen(im->dir) + sizeof(name) + 2);
	rel = strdup(name);
	if (!to || !rel) {
		free(to);
		free(rel);
		return NULL;
	}
	sprintf(to, "%s/%s", im->dir, name);
	in = open(from, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	else if (errno != EEXIST)
		hwt_import_warn(im, "%s: cannot copy the vDSO into the bundle: %s", to,
				strerror(errno));
	free(to);
	return rel;
}

char *hwt_import_binary(struct import *im, const char *filename, uint8_t *build_id,
			uint8_t *build_id_size, uint16_t *flags)
{
	const char *symfs = im->opt ? im->opt->symfs : NULL;
	char *path;

	*flags = 0;
	if (!filename[0] || !strncmp(filename, "//anon", 6) ||
	    (filename[0] == '[' && strcmp(filename, "[vdso]"))) {
		*flags = HWT_MMAP_ANON; /* anonymous code ([heap], JIT, ...) */
		return strdup("");
	}
	if (!*build_id_size)
		build_id_of(im, filename, build_id, build_id_size);
	if (!strcmp(filename, "[vdso]")) {
		path = from_cache(im, filename, build_id, *build_id_size);
		if (path) {
			char *rel = copy_vdso(im, path, build_id, *build_id_size);

			free(path);
			if (rel) {
				*flags = HWT_MMAP_VDSO;
				return rel;
			}
		}
		im->stats.missing_binaries++;
		hwt_import_warn(im, "the vDSO (build-id cache %s) is not in the build-id cache: "
				"trace in it will not decode", *build_id_size ? "entry" : "without id");
		return strdup(filename);
	}
	if (symfs) {
		path = malloc(strlen(symfs) + strlen(filename) + 2);
		if (!path)
			return NULL;
		sprintf(path, "%s%s%s", symfs, filename[0] == '/' ? "" : "/", filename);
		if (is_it(path, build_id, build_id_size))
			return path;
		free(path);
	}
	if (is_it(filename, build_id, build_id_size))
		return strdup(filename);
	path = from_cache(im, filename, build_id, *build_id_size);
	if (path)
		return path;
	im->stats.missing_binaries++;
	hwt_import_warn(im, "%s: not found%s%s%s (nor under --symfs, nor in the build-id cache): "
			"trace in it will not decode", filename,
			*build_id_size ? " with the recorded build-id" : "",
			access(filename, F_OK) == 0 ? "; the file there is another build" : "", "");
	return strdup(filename);
}
