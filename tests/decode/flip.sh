# Sourced by the decode tests that damage bundles.
# flip FILE OFFSET COUNT: inverts COUNT bytes from OFFSET.
flip() {
	python3 -c 'import sys
p, off, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(p, "rb").read())
for i in range(off, min(off + n, len(b))): b[i] ^= 0xff
open(p, "wb").write(b)' "$@"
}
