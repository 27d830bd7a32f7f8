/*
 * CPU mode (kmod_int.h): a process that was running before the trace
 * began has had no PROCESS_START or MMAP records from the kernel. Its
 * image is described from /proc when it is first seen (its first stream,
 * or a fork of it): the executable, arguments, parent and the executable
 * file mappings it has then, their build-ids read from the files.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "kmod_int.h"
#include "sw_image.h"

/* argv from /proc/PID/cmdline into strings of buf; how many. */
static uint32_t proc_args(uint32_t pid, char *buf, size_t size, const char **argv, uint32_t max)
{
	char path[64];
	ssize_t n;
	uint32_t argc = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (char *p = buf; p < buf + n && argc < max; p += strlen(p) + 1)
		argv[argc++] = p;
	return argc;
}

static uint32_t proc_ppid(uint32_t pid)
{
	char path[64], line[512], *p;
	unsigned ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* "pid (comm) state ppid": comm may hold spaces and parentheses. */
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) && sscanf(p + 1, " %*c %u", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return ppid;
}

/* The build-id of the ELF file at path, read from its notes. */
static uint32_t file_build_id(const char *path, uint8_t *id)
{
	struct stat st;
	uint32_t n = 0;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			n = kmod_elf_build_id(p, (size_t)st.st_size, id);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
	return n;
}

/* Appends the MMAP record of m to img (through the recording, which copies the vDSO). */
static int proc_mmap(struct hwt_kmod *k, struct kmod_image *img, struct hwt_sw_image *m,
		     uint64_t time)
{
	uint8_t buf[sizeof(struct hwt_record_mmap) + 4096];
	struct hwt_record_header *hdr = (struct hwt_record_header *)buf;
	uint32_t size;

	if (!(m->flags & HWT_MMAP_VDSO))
		m->build_id_size = file_build_id(m->path, m->build_id);
	size = hwt_sw_image_record(m, buf, sizeof(buf));
	if (!size)
		return 0;
	hwt_record_finish(hdr, HWT_RECORD_MMAP, size, time, img->pid, img->pid);
	return kmod_record_mmap(k, img, hdr);
}

int kmod_proc_image(struct hwt_kmod *k, struct kmod_image *img, uint64_t time)
{
	char path[64], exe[4096], args[4096], line[4608];
	const char *argv[64];
	uint8_t rec[sizeof(struct hwt_record_process) + 8192];
	struct hwt_record_header *hdr = (struct hwt_record_header *)rec;
	uint32_t argc, size;
	ssize_t n;
	FILE *maps;
	int ret;

	snprintf(path, sizeof(path), "/proc/%u/exe", img->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	argc = proc_args(img->pid, args, sizeof(args), argv, 64);
	size = hwt_record_process_build(rec, sizeof(rec), proc_ppid(img->pid), img->gen, exe,
					argv, argc);
	if (!size)
		return -hke_internal;
	hwt_record_finish(hdr, HWT_RECORD_PROCESS_START, size, time, img->pid, img->pid);
	ret = kmod_image_append(img, hdr);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%u/maps", img->pid);
	maps = fopen(path, "r");
	if (!maps) {
		kmod_warn(k, "process %u: its mappings cannot be read (it ended?): its trace may not decode",
			  img->pid);
		return 0;
	}
	while (!ret && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, off;
		char perms[8], file[4096] = "";
		struct hwt_sw_image m;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file) < 4 || perms[2] != 'x')
			continue;
		memset(&m, 0, sizeof(m));
		m.start = start;
		m.end = end;
		m.pgoff = off;
		m.path = file;
		if (!strcmp(file, "[vdso]"))
			m.flags = HWT_MMAP_VDSO;
		else if (file[0] != '/')
			continue;	/* anonymous code, [vsyscall]: not described (as the kernel's) */
		ret = proc_mmap(k, img, &m, time);
	}
	fclose(maps);
	return ret;
}
