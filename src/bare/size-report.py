#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""size-report.py ELF IMAGE OUT: print rtf-bare's sizes (image file, sections) and write them to OUT.

ELF is the i386 (32-bit) or x86-64 (64-bit) image; the name printed is OUT's without ".size".

OUT is key=value lines in bytes, read by tests/bare (the size limits) and docs/BARE.md."""
import os
import struct
import sys


def sections(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2):
        sys.exit(f"{path}: not an ELF file")
    if data[4] == 1:  # ELFCLASS32
        shoff, = struct.unpack_from("<I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
        head = "<IIIIIIIIII"
    else:  # ELFCLASS64: the same fields, addresses, offsets and sizes 8 bytes wide
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        head = "<IIQQQQIIQQ"
    heads = [struct.unpack_from(head, data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    names = {}
    for h in heads:
        start = strtab[4] + h[0]
        names[data[start:data.index(b"\0", start)].decode()] = (h[3], h[5])  # address, size
    return names


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: size-report.py ELF IMAGE OUT")
    s = sections(sys.argv[1])
    sizes = {
        "image_bytes": os.path.getsize(sys.argv[2]),
        "setup_bytes": s[".setup"][1],
        "kernel_bytes": s[".kernel"][1],
        "bss_bytes": s[".bss"][1],
        # from the start of the kernel to the end of .bss, alignment gaps included
        "memory_bytes": s[".bss"][0] + s[".bss"][1] - s[".kernel"][0],
    }
    text = "".join(f"{k}={v}\n" for k, v in sizes.items())
    with open(sys.argv[3], "w") as f:
        f.write(text)
    name = os.path.basename(sys.argv[3]).removesuffix(".size")
    print(f"{name}: " + " ".join(f"{k}={v}" for k, v in sizes.items()))


if __name__ == "__main__":
    main()
