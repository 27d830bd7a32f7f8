/*
 * Executable files: mapped bytes, build-id, PT_LOAD segments (libelf).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "elf_note.h"
#include "profile.h"

/* Reads the GNU build-id from the notes in data[offset .. offset + size). */
static void read_build_id(struct hwt_elf_file *file, uint64_t offset, uint64_t size)
{
	const uint8_t *desc;
	uint32_t n;

	if (offset > file->size || size > file->size - offset)
		return;
	n = hwt_elf_note_build_id(file->data + offset, size, sizeof(file->build_id), &desc);
	if (n) {
		memcpy(file->build_id, desc, n);
		file->build_id_size = n;
	}
}

static void read_headers(struct hwt_elf_file *file)
{
	Elf *elf;
	size_t n;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	elf = elf_memory((char *)file->data, file->size);
	if (!elf)
		return;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0) {
		elf_end(elf);
		return;
	}
	file->is_elf = 1;
	{
		GElf_Ehdr ehdr;

		if (gelf_getehdr(elf, &ehdr))
			file->machine = ehdr.e_machine;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			continue;
		if (phdr.p_type == PT_LOAD && file->load_count < HWT_ELF_MAX_LOADS) {
			struct hwt_elf_load *l = &file->loads[file->load_count++];

			l->offset = phdr.p_offset;
			l->filesz = phdr.p_filesz;
			l->vaddr = phdr.p_vaddr;
		} else if (phdr.p_type == PT_NOTE && !file->build_id_size) {
			read_build_id(file, phdr.p_offset, phdr.p_filesz);
		}
	}
	elf_end(elf);
}

int hwt_elf_file_open(struct hwt_elf_file *file, const char *path)
{
	struct stat st;
	int fd;

	memset(file, 0, sizeof(*file));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -hpe_io;
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -hpe_io;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -hpe_io;
	}
	file->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			close(fd);
			return -hpe_io;
		}
		file->data = p;
		file->size = (size_t)st.st_size;
	}
	close(fd);
	if (file->data)
		read_headers(file);
	return 0;
}

void hwt_elf_file_close(struct hwt_elf_file *file)
{
	if (file && file->data)
		munmap((void *)file->data, file->size);
	if (file)
		memset(file, 0, sizeof(*file));
}

uint64_t hwt_elf_file_vaddr(const struct hwt_elf_file *file, uint64_t offset)
{
	for (size_t i = 0; i < file->load_count; i++) {
		const struct hwt_elf_load *l = &file->loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz)
			return l->vaddr + (offset - l->offset);
	}
	return offset;
}
