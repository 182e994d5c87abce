#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""Writes well-formed inputs of each fuzz target into test/fuzz/corpus/TARGET
(seed-*), so that fuzzing starts from messages a process of the job would
send: libFuzzer finds its way past the MACs only because the targets seal
what the input marks to be sealed, and past the layouts from these."""
import os, struct

here = os.path.dirname(os.path.abspath(__file__))

def put(target, name, data):
    d = os.path.join(here, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)

# heartbeat: datagrams of 56 bytes, each preceded by a length byte whose
# top bit asks the target to seal it (MPIDI_FTDEV_hb_msg_t); the target
# receives as process 0, operating-system process id 1000
def hb(kind, frm, about=0, state=0, counter=1, to=0, to_ospid=1000):
    body = struct.pack('<IIiiiiiiQ', 0x32544846, kind, frm, 1000 + frm, about, state, to, to_ospid,
                       counter)
    return bytes([0x80 | 56]) + body + bytes(16)
put('heartbeat', 'beats', hb(1, 1) + hb(1, 1, counter=2) + hb(2, 3, counter=5))
put('heartbeat', 'failed', hb(3, 2, about=5))
put('heartbeat', 'verdict', hb(7, 4, about=6, state=4) + hb(6, 4, about=6, counter=2))
put('heartbeat', 'replay', hb(1, 0, counter=9) + hb(1, 0, counter=9) + hb(1, 0, counter=3))
put('heartbeat', 'for-another', hb(1, 2, to=3) + hb(3, 2, about=0, to_ospid=999))
put('heartbeat', 'old-format', bytes([24]) + struct.pack('<IIiiii', 0x46544842, 3, 1, 1001, 2, 0))

# control: world size, flags (1: seal, 2: sender of this world, bits 2-3:
# the epoch the receiver joined in), the 16-byte header (the MAC), then
# {type, pid, from, hops, to, epoch, from_birth, 0, counter} and the
# payload; the target receives as tag pid 0
def ctrl(n, flags, typ, about, frm, payload=b'', to=0, epoch=0, birth=0, counter=1):
    return bytes([n - 1, flags]) + bytes(16) + struct.pack('<IiiIiIIIQ', typ, about, frm, 3, to, epoch,
                                                           birth, 0, counter) + payload
put('control', 'failed', ctrl(8, 3, 1, 5, 2))
put('control', 'finalizing', ctrl(8, 1, 2, 3, 12))
put('control', 'channel', ctrl(8, 3, 4, 2, 1, bytes(40)))
put('control', 'revoke', ctrl(8, 1, 5, 0x1234, 9))
put('control', 'echo', ctrl(8, 3, 6, 3, 3, struct.pack('<I', 7)))
put('control', 'unsealed', ctrl(8, 2, 1, 5, 2))
put('control', 'for-another', ctrl(8, 3, 1, 5, 2, to=4))
put('control', 'before-joining', ctrl(8, 3 | 4, 1, 5, 2, epoch=0))
put('control', 'replacement', ctrl(8, 3 | 4, 1, 5, 2, epoch=1, birth=1, counter=7))

# rebuild: world size, sender, then the message (MPIDI_FTDEV_rb_msg_t,
# which starts with the head {kind, seq, sender}, and its entries)
def rb(kind, epoch, sender, entries):
    return struct.pack('<IIiI', kind, epoch, sender, len(entries)) + bytes(16) + b''.join(entries)
def entry(pid, state, addr, node):
    pad = (len(addr) + 7) & ~7
    contact = struct.pack('<IHHiQ', 0x0100007f, 4000, 0, 2000 + pid, 0)
    return struct.pack('<iIIi', pid, state, len(addr), node) + contact + addr + bytes(pad - len(addr))
n = 6
put('rebuild', 'ready', bytes([n - 1, 1]) + rb(1, 1, 1, []) [:32] + bytes((n + 7) // 8))
put('rebuild', 'hello', bytes([n - 1, 2]) + rb(2, 1, 2, [entry(2, 2, b'A' * 13, 1)]))
put('rebuild', 'welcome', bytes([n - 1, 0]) + rb(3, 1, 0, [entry(p, 2 if p == 2 else 0, b'B' * (p + 5), p // 2) for p in range(n)]))
put('rebuild', 'rebuilt', bytes([n - 1, 0]) + rb(4, 1, 0, [entry(2, 2, b'C' * 21, 1), entry(4, 2, b'D' * 8, 2)]))

# channels: channel, world size, sender, receiver, then the message, which
# starts with the head of mpid_ft.h: {kind, seq, sender}
def chan(c, n, frm, me, msg):
    return bytes([c, n - 1, frm, me]) + msg
nb = (n + 7) // 8
put('channels', 'recovery-join', chan(0, n, 1, 0, struct.pack('<IIii', 1, 1, 1, -1) + bytes(2 * nb) + struct.pack('<' + 'I' * n, *([0xffffffff] * n))))
put('channels', 'recovery-decide', chan(0, n, 0, 1, struct.pack('<IIii', 2, 2, 0, 0) + bytes(2 * nb)))
put('channels', 'commit-vote', chan(1, n, 1, 0, struct.pack('<IIiIIIIi', 1, 3, 1, 5, 0, 1, 0, 1)))
put('channels', 'commit-sweep', chan(1, n, 1, 3, struct.pack('<IIiIIIIi', 4, 3, 1, 5, 0, 1, 1, 0) + struct.pack('<iii', 3, 4, 5)))
put('channels', 'commit-state', chan(1, n, 2, 0, struct.pack('<IIiIIIIi', 3, 3, 2, 5, 0, 1, 0, 1) + bytes(24)))
size = 6
ulfm = struct.pack('<IIiIIIiiiiii', 1, 2, 1, 0x44, size, 2, 0, 1, 1, 0, 0, 0) + bytes(3 * ((size + 7) // 8)) + bytes(8)
put('channels', 'ulfm-contrib', chan(2, n, 1, 0, ulfm))
ulfm = struct.pack('<IIiIIIiiiiii', 2, 2, 0, 0x44, size, 0, 0, 1, 1, 0, 0, 1) + bytes(3 * ((size + 7) // 8))
put('channels', 'ulfm-decide', chan(2, n, 0, 3, ulfm))

# spawn: the receiver's process-id bits (9 + byte % 8), then either 0x80,
# a length as the other side claims it and one upid in an accept side's
# buffer, or a count, that many sizes and the upids end to end; a upid is
# {magic, tag_pid, pid_bits, tag_pid_next, world_id, address_len}, padding
# and the address (MPIDI_FTDEV_upid_header_t)
def upid(tag_pid, bits, nxt, addr, world_id=77):
    return struct.pack('<IiiiQI', 0x46547570, tag_pid, bits, nxt, world_id, len(addr)) + bytes(4) + addr
def accept(bits, length, u):
    return bytes([bits - 9, 0x80]) + struct.pack('<i', length) + u
def upids(bits, us, sizes=None):
    sizes = sizes or [len(u) for u in us]
    return bytes([bits - 9, len(sizes)]) + struct.pack('<' + 'i' * len(sizes), *sizes) + b''.join(us)
u = upid(3, 9, 8, b'A' * 40)
put('spawn', 'accept', accept(9, len(u), u))
put('spawn', 'intercomm', upids(10, [upid(2, 10, 6, b'B' * 56), upid(130, 10, 140, b'C' * 72, 0)]))
put('spawn', 'other-layout', upids(9, [upid(1, 12, 4, b'D' * 24)]))
# each of these, taken in by the checks before upids_check, indexes or
# reads past what the receiver holds
put('spawn', 'tag-pid-past-table', upids(9, [upid(5000, 9, 5001, b'E' * 24)]))
put('spawn', 'address-past-buffer', accept(9, 32 + 1000, upid(1, 9, 4, b'F' * 1000)[:256]))
put('spawn', 'negative-size', upids(9, [upid(1, 9, 4, b'G' * 40)[:32]], sizes=[72, -40]))
put('spawn', 'pid-bits-40', accept(9, 56, upid(1, 40, 4, b'H' * 24)))

# ckpt: the number of registered buffers (byte % 5), their sizes (a byte
# each), then a packed state: {nbufs, sizes} as uint64 and the bytes
def state(sizes, data=None, count=None):
    data = bytes((i * 7) % 256 for i in range(sum(sizes))) if data is None else data
    count = len(sizes) if count is None else count
    return struct.pack('<Q', count) + struct.pack('<' + 'Q' * len(sizes), *sizes) + data
def ckpt(registered, blob):
    return bytes([len(registered)] + registered) + blob
put('ckpt', 'fits', ckpt([4, 0, 16], state([4, 0, 16])))
put('ckpt', 'empty', ckpt([], state([])))
put('ckpt', 'other-layout', ckpt([8], state([4, 4])))
# each of these passed the checks before ckpt_blob_check, and was read past its end
put('ckpt', 'truncated', ckpt([16, 16], state([16, 16], data=bytes(20))))
put('ckpt', 'count-past-end', ckpt([], state([8], count=1 << 40)))
put('ckpt', 'sizes-wrap', ckpt([], state([(1 << 64) - 8, 16], data=bytes(8))))

# hydra: a PMI key (even first byte: its id's limit, doubled), or a
# proxy's header (odd first byte: command, payload length)
put('hydra', 'declared', bytes([2 * 8]) + b'PMI_declared_failed_3')
put('hydra', 'declared-bad', bytes([2 * 8]) + b'PMI_declared_failed_-1x')
put('hydra', 'other-key', bytes([2 * 8]) + b'PMI_dead_processes')
put('hydra', 'pmi-cmd', bytes([1]) + struct.pack('<ii', 7, 64))
put('hydra', 'terminated', bytes([1]) + struct.pack('<ii', 10, 0))
