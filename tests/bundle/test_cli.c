/*
 * The real hwt binary: the front end (help, version, unknown commands) and
 * hwt dump's listing, warnings and exit statuses on good and bad bundles.
 *
 * usage: test_bundle_cli PATH-TO-HWT VERSION
 */
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *hwt;

/* 1 when text has line as a whole line. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while (p && (p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p++;
	}
	return 0;
}

#define CHECK_LINE(text, line) \
	CHECKF(has_line((text), (line)), "missing line \"%s\" in:\n%s", (line), (text))
#define CHECK_NOLINE(text, line) \
	CHECKF(!has_line((text), (line)), "unexpected line \"%s\" in:\n%s", (line), (text))

#define run(r, ...) run5(r, __VA_ARGS__, NULL, NULL, NULL, NULL)
#define run5(r, a1, a2, a3, a4, a5, ...) run_argv(r, a1, a2, a3, a4, a5)

/* Runs hwt with up to five arguments (the first NULL ends them). */
static void run_argv(struct test_run *r, const char *a1, const char *a2, const char *a3,
		     const char *a4, const char *a5)
{
	char *argv[7] = { (char *)hwt, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			  (char *)a5, NULL };

	test_run_free(r);
	test_run(r, argv);
}

static void test_front_end(const char *version)
{
	struct test_run r = { 0 };
	char expect[64];

	run(&r, "--version", NULL, NULL, NULL);
	snprintf(expect, sizeof(expect), "hwt %s\n", version);
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(r.out, expect));

	run(&r, "--help", NULL, NULL, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "usage: hwt [--version] [--help] COMMAND [ARGS]");
	CHECK_STR(r.out, "\n  dump ");
	CHECK(!*r.err);
	run(&r, "help", NULL, NULL, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "usage: hwt");

	run(&r, NULL, NULL, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "usage: hwt");

	run(&r, "frobnicate", "x", NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "hwt: 'frobnicate' is not an hwt command");
	CHECK_STR(r.err, "usage: hwt");
	CHECK(!*r.out);
	run(&r, "--frobnicate", NULL, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "hwt: unknown option '--frobnicate'");

	run(&r, "help", "dump", NULL, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "usage: hwt dump [options] BUNDLE");
	CHECK_STR(r.out, "--sideband-only");
	run(&r, "dump", "--help", NULL, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "usage: hwt dump");
	run(&r, "help", "nope", NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "'nope' is not an hwt command");

	/* dump's own usage errors */
	run(&r, "dump", NULL, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "hwt dump: no bundle given");
	run(&r, "dump", "--pid", "12x", "b");
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "--pid: not a process id: '12x'");
	run(&r, "dump", "--pid", NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "--pid needs a process id");
	run(&r, "dump", "--bogus", "b", NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "unknown option '--bogus'");
	run(&r, "dump", "a", "b", NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "more than one bundle given: 'b'");
	run(&r, "dump", "--packets", "--sideband-only", "b");
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "exclude each other");
	test_run_free(&r);
}

static const char *const record_lines[] = {
	"  @0 t=1 100/100 process-start ppid=1 generation=0 path=\"/usr/bin/prog\" "
	"argv=[\"prog\", \"--flag\", \"a b\", \"tab\\there\"]",
	"  @88 t=2 100/100 mmap addr=0x400000-0x402000 pgoff=0x0 prot=r-x "
	"build-id=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 path=\"/usr/bin/prog\"",
	"  @192 t=3 100/100 mmap addr=0x7fff0000-0x7fff1000 pgoff=0x0 prot=r-x build-id=none "
	"vdso path=\"images/vdso.so\"",
	"  @296 t=4 100/100 mmap addr=0x7f0000000000-0x7f000001a000 pgoff=0x28000 prot=r-x "
	"build-id=a0a1a2a3a4a5a6a7 path=\"/lib/x86_64-linux-gnu/libc.so.6\"",
	"  @416 t=5 100/100 munmap addr=0x7f0000000000-0x7f0000001000",
	"  @464 t=6 100/100 thread-create child_tid=101",
	"  @504 t=7 100/101 switch cpu=1 in",
	"  @544 t=8 100/101 buffer buffer=101 offset=0x1000",
	"  @592 t=9 100/101 signal signo=11 (SIGSEGV) ip=0x401234",
	"  @640 t=12 100/101 thread-exit",
	"  @680 t=13 100/100 fork child_pid=102",
	"  @720 t=14 100/100 untraced ppid=100 path=\"/usr/bin/sudo\" reason=\"setuid executable\"",
	"  @792 t=15 100/100 unknown type=99 size=48 (skipped)",
	"  @840 t=16 100/100 exec ppid=1 generation=0 path=\"/bin/true\" argv=[\"true\"]",
	"  end: 14 records",
	"image 100.1 sideband/100.1.sb 432 bytes",
	"  @0 t=1 100/100 process-start ppid=1 generation=1 path=\"/bin/true\" argv=[\"true\"]",
	"  @64 t=2 100/100 mmap addr=0x500000-0x503000 pgoff=0x1000 prot=r-x "
	"build-id=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 path=\"/bin/true\"",
	"  @168 t=3 100/100 mmap addr=0x600000-0x601000 pgoff=0x0 prot=r-x build-id=none anon "
	"path=\"\"",
	"  @264 t=4 100/100 mmap addr=0x58000000-0x58001000 pgoff=0x0 prot=r-x build-id=none "
	"trace-unit path=\"/usr/libexec/valgrind/hwt-amd64-linux\" flags=0x100",
	"  @392 t=5 100/100 process-exit status=0x0 (exited 0)",
	"  end: 5 records",
	"  @176 t=4 102/102 exec ppid=100 generation=0 path=\"/nonexistent\" "
	"argv=[\"nonexistent\"] failed",
	"  @256 t=5 102/102 process-exit status=0x8b (killed by SIGSEGV, core dumped)",
	"stream 100.0-100 streams/100.0-100.pt 33 bytes",
	"stream 100.0-101 streams/100.0-101.pt 45 bytes",
	"stream 100.1-100 streams/100.1-100.pt 28 bytes",
	"stream 102.0-102 streams/102.0-102.pt 28 bytes",
	NULL,
};

static const char *const packet_lines[] = {
	"stream 100.0-100 streams/100.0-100.pt 33 bytes",
	"  0x00000000 psb",
	"  0x00000010 psbend",
	"  0x00000012 mode.exec cs.l=1 cs.d=0 (64-bit)",
	"  0x00000014 tip.pge ip=0x401000 ipc=sext48 payload=0x401000",
	"  0x0000001b tnt.8 !.!",
	"  0x0000001c tip ip=0x401234 ipc=update16 payload=0x1234",
	"  0x0000001f tnt.8 !!.!..",
	"  0x00000020 tip.pgd ipc=suppressed",
	"  0x00000010 tsc 0x5",
	"  0x00000018 psbend",
	"  0x0000001c tip.pge ip=0x7f0000001000 ipc=full payload=0x7f0000001000",
	"  0x00000025 pad",
	"  0x00000026 fup ip=0x7f0000002000 ipc=update32 payload=0x2000",
	"  0x0000002b ovf",
	"  0x00000014 tip.pge ip=0x500100 ipc=sext48 payload=0x500100",
	"  0x0000001b tip.pgd ipc=suppressed",
	NULL,
};

static void test_clean(void)
{
	struct test_run r = { 0 };
	struct test_bundle tb;
	char *dir = test_tmpdir("cli"), line[256];
	size_t i;

	synth_bundle(&tb, dir, SYNTH_SUMMARY);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 0);
	CHECKF(!*r.err, "stderr: %s", r.err);
	snprintf(line, sizeof(line), "bundle %s", dir);
	CHECK_LINE(r.out, line);
	CHECK_LINE(r.out, "  version=1");
	CHECK_LINE(r.out, "  unit=valgrind");
	CHECK_LINE(r.out, "  clock=sequence");
	CHECK_LINE(r.out, "  command=/usr/bin/prog --flag 'a b' $'tab\\there'");
	CHECK_LINE(r.out, "summary");
	CHECK_LINE(r.out, "  processes=2");
	CHECK_LINE(r.out, "  threads=4");
	CHECK_LINE(r.out, "  exit_status=0");
	snprintf(line, sizeof(line), "image 100.0 sideband/100.0.sb %" PRIu64 " bytes",
		 tb.recs[13].offset + tb.recs[13].size);
	CHECK_LINE(r.out, line);
	for (i = 0; record_lines[i]; i++)
		CHECK_LINE(r.out, record_lines[i]);
	CHECK_NOSTR(r.out, "  0x00000000 psb");
	/* Images in order, each followed by its streams. */
	CHECK(strstr(r.out, "image 100.0 ") < strstr(r.out, "stream 100.0-100 "));
	CHECK(strstr(r.out, "stream 100.0-101 ") < strstr(r.out, "image 100.1 "));
	CHECK(strstr(r.out, "image 100.1 ") < strstr(r.out, "image 102.0 "));

	/* With packets. */
	run(&r, "dump", "--packets", dir, NULL);
	CHECK_EQ(r.status, 0);
	CHECKF(!*r.err, "stderr: %s", r.err);
	for (i = 0; packet_lines[i]; i++)
		CHECK_LINE(r.out, packet_lines[i]);
	for (i = 0; record_lines[i]; i++)
		CHECK_LINE(r.out, record_lines[i]);

	/* One pid. */
	run(&r, "dump", "--pid", "102", dir, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "\nimage 102.0 ");
	CHECK_LINE(r.out, "stream 102.0-102 streams/102.0-102.pt 28 bytes");
	CHECK_NOSTR(r.out, "image 100.");
	CHECK_NOSTR(r.out, "stream 100.");
	run(&r, "dump", "--pid=100", "--sideband-only", dir);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.out, "\nimage 100.1 ");
	CHECK_NOSTR(r.out, "image 102.");
	CHECK_NOSTR(r.out, "stream ");
	test_run_free(&r);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

static void test_warnings(void)
{
	struct test_run r = { 0 };
	struct test_bundle tb;
	char *dir = test_tmpdir("cliwarn"), *path, *orig, expect[256];
	size_t size;
	uint8_t pt[128];
	size_t n;

	/* Lost data: a warning, exit 1, the listing is complete. */
	synth_bundle(&tb, dir, SYNTH_SUMMARY | SYNTH_LOST);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 1);
	snprintf(expect, sizeof(expect), "hwt dump: warning: %s/sideband/100.0.sb: data was "
		 "lost: 3 sideband records and 4096 trace bytes were dropped (2 lost records)",
		 dir);
	CHECK_LINE(r.err, expect);
	CHECK_LINE(r.out, "  @640 t=10 100/100 lost reason=trace-write records=0 bytes=4096");
	CHECK_LINE(r.out, "  @688 t=11 100/100 lost reason=record-queue records=3 bytes=0");
	CHECK_LINE(r.out, "  @176 t=3 102/102 lost reason=buffer-wrap records=0 bytes=100");

	/* A torn tail: 5 bytes into the record at 688. */
	path = test_path(dir, "sideband/100.0.sb");
	orig = test_read(path, &size);
	test_write(path, orig, 693);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 1);
	snprintf(expect, sizeof(expect), "hwt dump: warning: %s/sideband/100.0.sb: torn tail at "
		 "byte 688: the file ends 5 bytes into a record header; kept the 10 records "
		 "before it", dir);
	CHECK_LINE(r.err, expect);
	snprintf(expect, sizeof(expect), "hwt dump: warning: %s/sideband/100.0.sb: no exit "
		 "record: killed?", dir);
	CHECK_LINE(r.err, expect);
	CHECK_STR(r.err, "summary says sideband_bytes=");
	CHECK_LINE(r.out, "  @640 t=10 100/100 lost reason=trace-write records=0 bytes=4096");
	CHECK_NOSTR(r.out, "@688");
	CHECK_LINE(r.out, "  end: 10 records, then torn tail at byte 688: the file ends 5 bytes "
		   "into a record header");
	CHECK_LINE(r.out, "image 100.1 sideband/100.1.sb 432 bytes");

	/* A corrupt record: the CRC of the record at 504. */
	orig[504 + 12] ^= 1;
	test_write(path, orig, size);
	orig[504 + 12] ^= 1;
	run(&r, "dump", "--sideband-only", dir, NULL);
	CHECK_EQ(r.status, 1);
	snprintf(expect, sizeof(expect), "hwt dump: warning: %s/sideband/100.0.sb: corrupt "
		 "record at byte 504: bad CRC (type 10, size 40); kept the 6 records before it, "
		 "ignored the rest", dir);
	CHECK_LINE(r.err, expect);
	CHECK_LINE(r.out, "  @464 t=6 100/100 thread-create child_tid=101");
	CHECK_NOSTR(r.out, "@504");
	CHECK_NOSTR(r.out, "@544");
	test_write(path, orig, size);
	free(orig);
	free(path);

	/* A stream cut inside the TIP at 0x1c, and the summary no longer agreeing. */
	path = test_path(dir, "streams/100.0-100.pt");
	orig = test_read(path, &size);
	test_write(path, orig, 0x1e);
	run(&r, "dump", "--packets", dir, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_LINE(r.out, "stream 100.0-100 streams/100.0-100.pt 30 bytes");
	CHECK_LINE(r.out, "  0x0000001b tnt.8 !.!");
	CHECK_LINE(r.out, "  0x0000001c error: the stream ends inside a packet (2 bytes left)");
	snprintf(expect, sizeof(expect), "hwt dump: warning: %s/streams/100.0-100.pt: the "
		 "stream ends inside a packet at offset 0x1c (2 bytes left): truncated?", dir);
	CHECK_LINE(r.err, expect);
	CHECK_STR(r.err, "summary says trace_bytes=134 but the files hold 131");
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_NOSTR(r.err, "inside a packet");  /* packets not decoded */
	CHECK_STR(r.err, "summary says trace_bytes=134");

	/* Garbage without a PSB. */
	memset(pt, 0x99, 30);
	test_write(path, pt, 30);
	run(&r, "dump", "--packets", "--pid", "100", dir);
	CHECK_EQ(r.status, 1);
	CHECK_LINE(r.out, "  no PSB in 30 bytes: nothing to decode");
	CHECK_STR(r.err, "/streams/100.0-100.pt: no PSB in its 30 bytes: the stream cannot be "
		  "decoded");

	/* Junk before the first PSB, a bad opcode, then a PSB to resynchronise at. */
	n = 0;
	pt[n++] = 0x99;
	pt[n++] = 0x99;
	pt[n++] = 0x99;
	n += pt_psb(pt + n);
	n += pt_psbend(pt + n);
	pt[n++] = 0x02; /* an extended opcode that does not exist */
	pt[n++] = 0xff;
	pt[n++] = 0x00;
	n += pt_psb(pt + n);
	n += pt_psbend(pt + n);
	n += pt_ip(pt + n, PT_TIP_PGE, 3, 0x401000);
	test_write(path, pt, n);
	run(&r, "dump", "--packets", dir, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_LINE(r.out, "  0x00000000 skipped 3 bytes before the first PSB");
	CHECK_LINE(r.out, "  0x00000003 psb");
	CHECK_LINE(r.out, "  0x00000013 psbend");
	CHECK_STR(r.out, "  0x00000015 error: ");
	CHECK_LINE(r.out, "  0x00000018 resync at the next PSB");
	CHECK_LINE(r.out, "  0x00000018 psb");
	CHECK_LINE(r.out, "  0x0000002a tip.pge ip=0x401000 ipc=sext48 payload=0x401000");
	CHECK_STR(r.err, "/streams/100.0-100.pt: 3 bytes before the first PSB were skipped");
	CHECK_STR(r.err, "/streams/100.0-100.pt: decode error at offset 0x15 (");
	CHECK_STR(r.err, "resynchronised at the next PSB (0x18)");
	/* Still listed: the other streams. */
	CHECK_LINE(r.out, "  0x0000002b ovf");
	test_write(path, orig, size);
	free(orig);
	free(path);

	/* A stream without sideband comes last, and says so. */
	path = test_path(dir, "streams/300.0-301.pt");
	test_write(path, pt, 3);
	free(path);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_LINE(r.out, "stream 300.0-301 streams/300.0-301.pt 3 bytes (no sideband)");
	CHECK(strstr(r.out, "image 102.0") < strstr(r.out, "stream 300.0-301"));
	CHECK_STR(r.err, "/streams/300.0-301.pt: no sideband (sideband/300.0.sb is missing)");

	/* No summary: the recording did not finish. */
	path = test_path(dir, "summary");
	unlink(path);
	free(path);
	run(&r, "dump", "--sideband-only", dir, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_LINE(r.out, "summary none (recording not finished)");
	CHECK_STR(r.err, "no summary: the recording did not finish (recorder killed?)");

	test_run_free(&r);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

static void test_unusable(void)
{
	struct test_run r = { 0 };
	char *dir = test_tmpdir("cliunusable"), *sub, *hdr, expect[256];

	sub = test_path(dir, "missing");
	run(&r, "dump", sub, NULL, NULL);
	CHECK_EQ(r.status, 2);
	snprintf(expect, sizeof(expect), "hwt dump: error: %s: no such bundle directory\n", sub);
	CHECK(!strcmp(r.err, expect));
	CHECK(!*r.out);
	free(sub);

	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "an empty directory, not a trace bundle");

	hdr = test_path(dir, "hwt-bundle");
	test_write(hdr, "hwt-bundle 2\n", 13);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "bundle version \"2\" is not supported (this hwt reads version 1)");
	test_write(hdr, "#!/bin/sh\necho\n", 15);
	run(&r, "dump", "--packets", dir, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "not a trace bundle header: first line is \"#!/bin/sh\"");
	run(&r, "dump", hdr, NULL, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.err, "not a directory, so not a trace bundle");
	free(hdr);

	/* A header and nothing else: readable, with warnings. */
	hdr = test_path(dir, "hwt-bundle");
	test_write(hdr, "hwt-bundle 1\n", 13);
	free(hdr);
	run(&r, "dump", dir, NULL, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_STR(r.err, "no summary");
	CHECK_STR(r.err, "/sideband: cannot list process images: No such file or directory");

	test_run_free(&r);
	test_rmtree(dir);
	free(dir);
}

/* hwt record -f replaces a bundle, whatever its name holds, and nothing else. */
static void test_force(void)
{
	struct test_run r = { 0 };
	char *dir = test_tmpdir("cliforce");
	char *bundle = test_path(dir, "it's a \"bundle\"");
	char *other = test_path(dir, "not a bundle");
	char *old, *hdr, expect[512];

	test_mkdir(bundle);
	hdr = test_path(bundle, "hwt-bundle");
	test_write(hdr, "hwt-bundle 1\n", 13);
	old = test_path(bundle, "old-file");
	test_write(old, "x", 1);
	run(&r, "record", "-qfo", bundle, "/bin/true");
	CHECKF(r.status == 0, "record -f: status %d: %s", r.status, r.err);
	CHECK(access(old, F_OK) != 0);
	CHECK(access(hdr, F_OK) == 0);
	free(old);
	free(hdr);

	test_mkdir(other);
	old = test_path(other, "keep");
	test_write(old, "x", 1);
	run(&r, "record", "-qfo", other, "/bin/true");
	CHECK_EQ(r.status, 2);
	snprintf(expect, sizeof(expect),
		 "hwt record: %s exists and is not a trace bundle: not replacing it\n", other);
	CHECK(!strcmp(r.err, expect));
	CHECK(access(old, F_OK) == 0);
	free(old);

	test_run_free(&r);
	test_rmtree(dir);
	free(bundle);
	free(other);
	free(dir);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PATH-TO-HWT VERSION\n", argv[0]);
		return 2;
	}
	hwt = argv[1];
	test_front_end(argv[2]);
	test_clean();
	test_warnings();
	test_unusable();
	test_force();
	return test_done("test_cli");
}
