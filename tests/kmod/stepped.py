#!/usr/bin/env python3
"""Instructions a bundle's block logs hold (blocks/*.blk: {u64 start; u32 insns;
u32 flags} entries): what the sw backend stepped.  usage: stepped.py BUNDLE"""
import os
import struct
import sys

total = 0
blocks = os.path.join(sys.argv[1], "blocks")
for name in os.listdir(blocks):
    with open(os.path.join(blocks, name), "rb") as f:
        data = f.read()
    total += sum(struct.unpack_from("<QII", data, i)[1] for i in range(0, len(data) - 15, 16))
print(total)
