#!/bin/sh
# The round-trip check must be able to fail: a block log missing its last
# block, and a stream with a flipped byte, must both be rejected.
# usage: run_negative.sh HWT CHECK WORKDIR PROGRAM
set -u
hwt=$1 check=$2 work=$3 program=$4
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --debug-blocks -o "$work" -- "$program" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }
"$check" "$work" >/dev/null || { echo "FAIL: the untouched bundle does not check"; exit 1; }
blk=$(ls "$work"/blocks/*.blk | head -n 1)
pt=$(ls "$work"/streams/*.pt | head -n 1)

cp "$blk" "$work/saved.blk"
size=$(stat -c %s "$blk")
truncate -s $((size - 16)) "$blk"
if "$check" "$work" >/dev/null 2>&1; then
	echo "FAIL: a block log without its last block was accepted"
	exit 1
fi
cp "$work/saved.blk" "$blk"

# Flip every bit of one byte in the middle of the packets.
size=$(stat -c %s "$pt")
off=$((size / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$pt" | tr -d ' ')
printf "$(printf '\\%03o' $((255 - byte)))" | dd of="$pt" bs=1 seek="$off" conv=notrunc 2>/dev/null
if "$check" "$work" >/dev/null 2>&1; then
	echo "FAIL: a stream with a flipped byte at $off was accepted"
	exit 1
fi
echo "negative: 2 passed, 0 failed"
