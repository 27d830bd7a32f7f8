/*
 * profile_tool live SRC DEST OUT [grow]: the decode while recording
 * (hwt_decode_live_*) on a bundle written as a recorder would: SRC's files
 * are copied into the new bundle DEST one process image at a time (streams
 * first, its sideband last, then a pause of several passes), while the
 * thread decodes. Then, with "grow", a byte (a PAD packet) is appended to
 * the stream of the first traced image, as a unit that wrote after
 * PROCESS_EXIT would. Then the summary; the decode is finished as
 * `hwt report profile` would (its diagnostics on stderr, prefixed "hwt
 * report profile"), the profile written to OUT, and "live-images N" (the
 * images decoded early and kept) printed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwt_command.h"
#include "hwt_decode.h"
#include "live_replay.h"

/* Longer than two passes of the thread (at least 100 ms each). */
#define PAUSE_MS 300

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out, status = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			status = -1;
	if (n < 0)
		status = -1;
	close(in);
	close(out);
	return status;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Copies SRC/sub/NAME to DEST/sub/NAME for names starting with prefix (all: ""). */
static int copy_dir(const char *src, const char *dest, const char *sub, const char *prefix)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct dirent **names;
	int n, status = 0;

	snprintf(from, sizeof(from), "%s/%s", src, sub);
	n = scandir(from, &names, NULL, by_name);
	if (n < 0)
		return errno == ENOENT ? 0 : -1;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (name[0] != '.' && !strncmp(name, prefix, strlen(prefix))) {
			snprintf(from, sizeof(from), "%s/%s/%s", src, sub, name);
			snprintf(to, sizeof(to), "%s/%s/%s", dest, sub, name);
			if (copy_file(from, to) < 0)
				status = -1;
		}
		free(names[i]);
	}
	free(names);
	return status;
}

static int make_dirs(const char *dest)
{
	static const char *const subs[] = { "", "/sideband", "/streams", "/images" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dest, subs[i]);
		if (mkdir(path, 0755) < 0)
			return -1;
	}
	return 0;
}

/* One image: its streams (SRC/streams/PREFIX*), then its sideband file name. */
static int copy_image(const char *src, const char *dest, const char *name, const char *prefix)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (copy_dir(src, dest, "streams", prefix) < 0)
		return -1;
	snprintf(from, sizeof(from), "%s/sideband/%s", src, name);
	snprintf(to, sizeof(to), "%s/sideband/%s", dest, name);
	return copy_file(from, to);
}

/* Appends a PAD packet to the first stream DIR/streams/PREFIX*. */
static int append_pad(const char *dir, const char *prefix)
{
	static const char pad;
	char path[PATH_MAX + 256];
	struct dirent **names;
	int n, status = -1;

	snprintf(path, sizeof(path), "%s/streams", dir);
	n = scandir(path, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		if (status < 0 && !strncmp(names[i]->d_name, prefix, strlen(prefix))) {
			int fd;

			snprintf(path, sizeof(path), "%s/streams/%s", dir, names[i]->d_name);
			fd = open(path, O_WRONLY | O_APPEND);
			status = fd >= 0 && write(fd, &pad, 1) == 1 ? 0 : -1;
			if (fd >= 0)
				close(fd);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return status;
}

int hwt_live_replay_main(const char *src, const char *dest, const char *out, int grow)
{
	struct hwt_command_decode_options options = { .prefix = "hwt report profile" };
	char from[PATH_MAX], to[PATH_MAX], first[64] = "";
	struct hwt_profile *profile = hwt_profile_alloc();
	struct hwt_decode_live *live;
	struct dirent **names;
	size_t images;
	int n, status;

	if (!profile || make_dirs(dest) < 0) {
		fprintf(stderr, "profile_tool live: cannot make %s: %s\n", dest, strerror(errno));
		return 2;
	}
	live = hwt_decode_live_start(dest);
	if (!live) {
		fprintf(stderr, "profile_tool live: cannot start the decode\n");
		return 2;
	}
	pause_ms(PAUSE_MS); /* passes over a directory that is no bundle yet */
	snprintf(from, sizeof(from), "%s/hwt-bundle", src);
	snprintf(to, sizeof(to), "%s/hwt-bundle", dest);
	if (copy_file(from, to) < 0 || copy_dir(src, dest, "images", "") < 0)
		goto io;
	snprintf(from, sizeof(from), "%s/sideband", src);
	n = scandir(from, &names, NULL, by_name);
	if (n < 0)
		goto io;
	status = 0;
	for (int i = 0; i < n; i++) {
		char *name = names[i]->d_name, *dot = strrchr(name, '.');
		char prefix[64];
		int native = !strcmp(name, "untraced.sb");

		if (status == 0 && name[0] != '.' && dot && !strcmp(dot, ".sb")) {
			/* untraced.sb has no streams: a prefix no stream has. */
			snprintf(prefix, sizeof(prefix), "%.*s-", (int)(dot - name), name);
			status = copy_image(src, dest, name, native ? "/" : prefix);
			if (!first[0] && !native)
				snprintf(first, sizeof(first), "%s", prefix);
			pause_ms(PAUSE_MS);
		}
		free(names[i]);
	}
	free(names);
	/* PAD: the profile stays the same, but the stream has changed. */
	if (status < 0 || (grow && first[0] && append_pad(dest, first) < 0))
		goto io;
	snprintf(from, sizeof(from), "%s/summary", src);
	snprintf(to, sizeof(to), "%s/summary", dest);
	if (copy_file(from, to) < 0)
		goto io;

	options.live = live;
	status = hwt_command_decode(dest, profile, &options);
	images = hwt_decode_live_images(live);
	hwt_decode_live_free(live);
	if (status < 0 || hwt_profile_save(profile, out) < 0) {
		fprintf(stderr, "profile_tool live: no profile\n");
		hwt_profile_free(profile);
		return 2;
	}
	hwt_profile_free(profile);
	printf("live-images %zu\n", images);
	return 0;
io:
	fprintf(stderr, "profile_tool live: copying %s into %s: %s\n", src, dest, strerror(errno));
	hwt_decode_live_free(live);
	hwt_profile_free(profile);
	return 2;
}
