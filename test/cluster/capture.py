#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""What a host on the network path sees: the UDP datagrams sent to the
given ports, captured on a link (run as root in the simulated cluster's
switch namespace; LINK "any": on all its links, the nodes' veth ends,
since frames the bridge forwards between its ports never reach br0 itself)
for SECONDS, and written to OUT one per line in hex, each distinct
datagram once (at most 4,096).

    capture.py LINK SECONDS OUT PORT...

Exit status 77 (and one line) where no packet socket can be opened.
"""
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
MOST = 4096


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    link, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    ports = {int(p) for p in sys.argv[4:]}
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    except OSError as e:
        print(f"cannot capture: no packet socket here ({e})")
        sys.exit(77)
    if link != "any":
        s.bind((link, 0))
    seen, order = set(), []
    until = time.monotonic() + seconds
    while time.monotonic() < until and len(order) < MOST:
        if not select.select([s], [], [], 0.1)[0]:
            continue
        frame = s.recv(65536)
        # Ethernet, IPv4, UDP
        if len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
            continue
        udp = 14 + (frame[14] & 0x0F) * 4
        if len(frame) < udp + 8:
            continue
        dport, length = struct.unpack("!2xH H", frame[udp:udp + 6])
        payload = frame[udp + 8:udp + length]
        if dport in ports and payload and payload not in seen:
            seen.add(payload)
            order.append(payload)
    with open(out, "w") as f:
        for p in order:
            f.write(p.hex() + "\n")
    print(f"captured {len(order)} distinct datagram(s) to {len(ports)} port(s)")


if __name__ == "__main__":
    main()
