/* Files and paths: joining, reading whole small files, atomic writes. */
#include "bundle_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hwt_grow(void **items, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -hbe_nomem;
		ncap *= 2;
	}
	p = realloc(*items, ncap * elem);
	if (!p)
		return -hbe_nomem;
	*items = p;
	*cap = ncap;
	return 0;
}

char *hwt_strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

char *hwt_path_join(const char *dir, const char *name)
{
	return hwt_strdup_printf("%s/%s", dir, name);
}

int hwt_file_read(const char *path, size_t max, char **text, size_t *len)
{
	struct stat st;
	size_t size = 0, cap;
	char *buf;
	int fd, saved;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -hbe_io;
	if (fstat(fd, &st) < 0)
		goto fail_io;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail_io;
	}
	if ((uint64_t)st.st_size > max) {
		errno = EFBIG;
		goto fail_io;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -hbe_nomem;
	}
	/* Read what is there, even if the file changed size meanwhile. */
	for (;;) {
		ssize_t n = read(fd, buf + size, cap - 1 - size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			close(fd);
			errno = saved;
			return -hbe_io;
		}
		if (n == 0)
			break;
		size += (size_t)n;
		if (size == cap - 1)
			break;
	}
	close(fd);
	buf[size] = '\0';
	*text = buf;
	*len = size;
	return 0;

fail_io:
	saved = errno;
	close(fd);
	errno = saved;
	return -hbe_io;
}

int hwt_file_read_listed(int dir_fd, const char *path, size_t size, void **bytes)
{
	char *buf = malloc(size + 1);
	size_t got = 0;
	int fd;

	*bytes = NULL;
	if (!buf)
		return -hbe_nomem;
	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -hbe_io;
	}
	/* A regular file's read is short at its end: one read when the size
	   is still the one listed. */
	while (got <= size) {
		ssize_t n = read(fd, buf + got, size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == size)
			break;
	}
	close(fd);
	if (got != size) {
		free(buf);
		return -hbe_io;
	}
	*bytes = buf;
	return 0;
}

static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

int hwt_file_write_atomic(const char *dir, const char *name, const char *text, size_t len)
{
	char *tmp, *path;
	int fd, saved, dfd;

	tmp = hwt_strdup_printf("%s/.%s.tmp.XXXXXX", dir, name);
	path = hwt_path_join(dir, name);
	if (!tmp || !path) {
		free(tmp);
		free(path);
		return -hbe_nomem;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, 0644) < 0 || write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		goto fail;
	}
	/* Make the rename itself durable; failing that is not an error. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(path);
	return 0;

fail:
	saved = errno;
	free(tmp);
	free(path);
	errno = saved;
	return -hbe_io;
}

void hwt_escape(char *out, size_t out_size, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	if (!out_size)
		return;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[5];
		size_t n;

		if (c == '\\' || c == '"') {
			e[0] = '\\';
			e[1] = (char)c;
			n = 2;
		} else if (c == '\n') {
			memcpy(e, "\\n", 2);
			n = 2;
		} else if (c == '\t') {
			memcpy(e, "\\t", 2);
			n = 2;
		} else if (c < 0x20 || c >= 0x7f) {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			n = 4;
		} else {
			e[0] = (char)c;
			n = 1;
		}
		if (o + n + 3 >= out_size) {
			/* Room for "..." when we stop early. */
			if (out_size > 3 && o + 3 < out_size) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
}

int hwt_parse_u32(const char **p, uint32_t *value)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	if (*s == '0' && s[1] >= '0' && s[1] <= '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
		s++;
	}
	*value = (uint32_t)v;
	*p = s;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int hwt_dir_list(const char *dir, char ***names, size_t *count)
{
	struct dirent *de;
	char **list = NULL;
	size_t n = 0, cap = 0;
	int saved;
	DIR *d;

	*names = NULL;
	*count = 0;
	d = opendir(dir);
	if (!d)
		return -hbe_io;
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (hwt_grow((void **)&list, &cap, n + 1, sizeof(*list)) ||
		    !(list[n] = strdup(de->d_name))) {
			closedir(d);
			hwt_dir_list_free(list, n);
			return -hbe_nomem;
		}
		n++;
	}
	saved = errno;
	closedir(d);
	if (saved) {
		hwt_dir_list_free(list, n);
		errno = saved;
		return -hbe_io;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), name_cmp);
	*names = list;
	*count = n;
	return 0;
}

void hwt_dir_list_free(char **names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int hwt_bundle_list_folder(struct hwt_bundle *bundle, const char *sub, const char *what,
			   const char *expected, int (*parse)(const char *name, void *ctx),
			   int (*add)(struct hwt_bundle *bundle, void *ctx, char *path, uint64_t size),
			   void *ctx)
{
	char *dir, **names;
	size_t count, i;
	int err, dir_fd;

	dir = hwt_path_join(bundle->dir, sub);
	if (!dir)
		return -hbe_nomem;
	err = hwt_dir_list(dir, &names, &count);
	if (err == -hbe_io)
		err = hwt_bundle_diag_add(bundle, hwt_diag_io, dir, -1, "cannot list %s: %s", what,
					  strerror(errno));
	if (err) {
		free(dir);
		return err;
	}
	/* Each file's size from the folder, not its whole path walked again:
	   a suite's bundle has hundreds of files in each */
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < count && !err; i++) {
		struct stat st;
		char *path = hwt_path_join(dir, names[i]);

		if (!path) {
			err = -hbe_nomem;
			break;
		}
		if (parse(names[i], ctx)) {
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "stray file in %s/, ignored (expected %s)", sub,
						  expected);
			free(path);
			continue;
		}
		if ((dir_fd >= 0 ? fstatat(dir_fd, names[i], &st, 0) : stat(path, &st)) < 0 ||
		    !S_ISREG(st.st_mode)) {
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "not a regular file, ignored");
			free(path);
			continue;
		}
		err = add(bundle, ctx, path, (uint64_t)st.st_size);
	}
	if (dir_fd >= 0)
		close(dir_fd);
	hwt_dir_list_free(names, count);
	free(dir);
	return err;
}
