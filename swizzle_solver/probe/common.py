"""What the CUDA and HIP probes share: the tile's contents, the load checksum, the tables as C text.

The tile is filled before the loads with a known image, so a load reads real data and the host can
check that each kernel read exactly the bytes the plan says: halfword h of the storage holds
``fill(h) = (h * 40503 + 12345) mod 2^16`` (the kernels compute the same), and a kernel's checksum is
each lane's sum, mod 2^32, of every unit its loads brought into registers (16-bit units; bytes or
nibbles for AMD's transposing loads of 8- and 4-bit data), weighted by lane (2 l + 1) on the host,
so a lane that read another lane's bytes is caught too. For ldmatrix the units a lane receives
follow the PTX fragment layout; for AMD's transposing loads only the total is checked.
"""
from __future__ import annotations

import numpy as np

from .plan import ProbeAccess

FILL_MUL, FILL_ADD = 40503, 12345
ALIGN_BYTES = 1024  # the tile's base: a bank needs 128 B (256 B on 64-bank targets); every swizzle period fits 1 KiB


def image(storage_bytes: int) -> np.ndarray:
    """The filled tile as bytes (little-endian halfwords), a whole number of 32-bit words."""
    words = -(-storage_bytes // 4)
    h = np.arange(2 * words, dtype=np.int64)
    halves = ((h * FILL_MUL + FILL_ADD) & 0xFFFF).astype("<u2")
    return halves.view(np.uint8)


def run_sums(storage_bytes: int, bits: int) -> np.ndarray:
    """prefix[i]: the sum of the ``bits``-bit units of the filled tile's bytes [0, i), so the units of
    n bytes at a are prefix[a + n] - prefix[a] (a and n multiples of the unit)."""
    data = image(storage_bytes).astype(np.int64)
    if bits == 16:
        per_byte = np.where(np.arange(data.size) % 2 == 0, data, data << 8)  # a halfword's bytes, little-endian
    elif bits == 8:
        per_byte = data
    else:
        per_byte = (data & 0xF) + (data >> 4)
    return np.concatenate([[0], np.cumsum(per_byte)])


def lane_sums(access: ProbeAccess, storage_bytes: int, wave: int) -> np.ndarray | None:
    """What each lane's loads sum to (mod 2^32), lane by lane; None for a store, whose values are
    not read back (a read-back would add loads to the kernel). A one-byte load (ld.shared.u8,
    ds_read_u8) brings its byte; wider ones their 16-bit units."""
    op = access.op
    if op.store:
        return None
    prefix = run_sums(storage_bytes, 8 if op.lane_bytes == 1 else op.checksum_bits)
    starts, sizes = received(access, wave)  # (instructions, wave, runs): byte offsets (-1: none) and sizes
    got = np.where(starts >= 0, prefix[np.maximum(starts, 0) + sizes] - prefix[np.maximum(starts, 0)], 0)
    return got.sum(axis=(0, 2)) % (1 << 32)


def received(access: ProbeAccess, wave: int) -> tuple[np.ndarray, np.ndarray]:
    """The byte runs each lane receives from each instruction: (starts, sizes), shape (instructions,
    wave, runs), -1 where none. ldmatrix (PTX ISA, the m8n8 .b16 fragment): register i of lane l is
    row l / 4 of matrix i, elements 2 (l % 4) and 2 (l % 4) + 1; with .trans, rows 2 (l % 4) and
    2 (l % 4) + 1 of its column l / 4 (the row addresses are lanes 8 i .. 8 i + 7). Any other op:
    the lane's own slot(s), lane l and, for ds_read2, l + wave."""
    op, offsets = access.op, access.offsets
    n = offsets.shape[0]
    lane = np.arange(wave)
    if not op.matrices:
        starts = offsets.reshape(n, -1, wave).transpose(0, 2, 1)  # slot l + a * wave: address a of lane l
        return starts, np.full(starts.shape, op.lane_bytes, np.int64)
    runs = []
    for i in range(op.matrices):
        rows = offsets[:, 8 * i:8 * i + 8]
        if op.trans:
            runs.append((rows[:, 2 * (lane % 4)] + 2 * (lane // 4), 2))
            runs.append((rows[:, 2 * (lane % 4) + 1] + 2 * (lane // 4), 2))
        else:
            runs.append((rows[:, lane // 4] + 4 * (lane % 4), 4))
    starts = np.stack([s for s, _ in runs], axis=2)
    sizes = np.broadcast_to(np.array([k for _, k in runs]), starts.shape)
    return starts, sizes


def weighted(op) -> bool:
    """Whether the host checks each lane's sum (weighted by 2 l + 1), or only their total: the
    transposing AMD loads move data between lanes in ways this module does not model."""
    return "_tr_" not in op.name


def checksum(access: ProbeAccess, storage_bytes: int, wave: int) -> int | None:
    """What the host computes from the lanes' sums: sum over lanes l of (2 l + 1) * sum_l (or of
    sum_l, where not ``weighted``), mod 2^32; None for a store."""
    sums = lane_sums(access, storage_bytes, wave)
    if sums is None:
        return None
    weights = np.arange(wave) * 2 + 1 if weighted(access.op) else np.ones(wave, np.int64)
    return int((sums * weights).sum() % (1 << 32))


def fill_instructions(storage_bytes: int, wave: int) -> int:
    """Instructions of the fill: each stores ``wave`` consecutive 32-bit words."""
    words = -(-storage_bytes // 4)
    return -(-words // wave)


def c_table(values: np.ndarray, per_line: int) -> str:
    """An int table as C initialiser lines (indented), ``per_line`` values a line."""
    flat = values.reshape(-1).tolist()
    lines = [", ".join(str(v) for v in flat[i:i + per_line]) for i in range(0, len(flat), per_line)]
    return ",\n".join("    " + line for line in lines)


def c_string(text: str) -> str:
    """``text`` as a C string literal (printable ASCII; anything else escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch) & 0xFF:02x}\"\"")
    return '"' + "".join(out) + '"'


def comment(text: str) -> str:
    """``text`` safe inside a // comment (one line, printable, no line splice)."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text).replace("\\", "/")


def run_probe(source: str) -> str:
    """The part of run.sh that both targets share: build the probe if ``source`` is newer, then run it
    alone (outside the profiler), which checks every load's bytes: exit 3 is a checksum that differs
    (measured anyway; probe-compare reports it), any other failure ends the script."""
    return f"""export LC_ALL=C  # numbers as probe-compare reads them (no locale's decimal comma)
if [ ! -x probe ] || [ {source} -nt probe ]; then
  bash build.sh || {{ echo "run.sh: the build failed" >&2; exit 1; }}
fi
# the probe alone first: it checks that every load read the planned bytes (probe.out; exit 3: one did not)
./probe > probe.out
status=$?
cat probe.out
if [ $status -eq 3 ]; then
  echo "run.sh: a checksum differs (see above): measuring anyway; probe-compare reports it" >&2
elif [ $status -ne 0 ]; then
  echo "run.sh: the probe failed without the profiler (see above)" >&2; exit 1
fi
"""


def host_program(probe, host, wave: int) -> str:
    """The host program of every probe target, its runtime's spelling from ``host`` (targets.Host):
    it launches each kernel once (one block of ``wave`` lanes; the profiler replays it as often as
    its counters need) and checks that every load read the bytes the plan says: each lane's sum of
    the units it loaded, weighted by 2 l + 1 (the transposing AMD loads: the plain total), against
    the sums computed from the layout's table when the probe was written. ``probe``: plan.Probe."""
    rt = host.runtime
    rows = []
    for a in probe.accesses:
        expected = checksum(a, probe.storage_bytes, wave)
        rows.append(f"    {{\"probe_a{a.index}\", {c_string(a.spec)}, probe_a{a.index}, "
                    f"{'true' if expected is not None else 'false'}, {'true' if weighted(a.op) else 'false'}, "
                    f"{expected or 0}u}},")
    guard = (f"#ifndef {host.guard}\n", "#endif\n") if host.guard else ("", "")
    return guard[0] + f"""\
#define CHECK(call) do {{ {rt}Error_t e_ = (call); if (e_ != {rt}Success) {{ \\
  std::fprintf(stderr, "probe: %s failed: %s\\n", #call, {rt}GetErrorString(e_)); std::exit(2); }} }} while (0)

struct Kernel {{ const char* name; const char* access; void (*fn)(unsigned*); bool loads; bool weighted; unsigned expected; }};
static const Kernel kernels[] = {{
""" + "\n".join(rows) + f"""
}};

// Launches each kernel once (the profiler replays it as often as its counters need) and checks that every
// load read the bytes the plan says: each lane's sum of the units it loaded (for ldmatrix: received, by the
// PTX fragment layout), weighted by 2 l + 1 (the transposing AMD loads: the plain total), against the sums
// computed from the layout's table when the probe was written.
int main(int argc, char**) {{  // any argument (run.sh's "profile"): exit 0 whatever the checksums, for the profiler
  {host.prop} prop;
  CHECK({rt}GetDeviceProperties(&prop, 0));
  std::printf({host.device});
  unsigned* out = nullptr;
  CHECK({rt}Malloc(&out, WAVE * sizeof(unsigned)));
  int bad = 0;
  for (const Kernel& k : kernels) {{
    CHECK({rt}FuncSetAttribute({host.attribute}, {rt}FuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    CHECK({rt}Memset(out, 0, WAVE * sizeof(unsigned)));
    k.fn<<<1, WAVE, SMEM_BYTES>>>(out);
    CHECK({rt}GetLastError());
    CHECK({rt}DeviceSynchronize());
    unsigned lanes[WAVE];
    CHECK({rt}Memcpy(lanes, out, sizeof lanes, {rt}MemcpyDeviceToHost));
    unsigned sum = 0;  // a lane that read another lane's bytes shows
    for (unsigned l = 0; l < WAVE; ++l) sum += (k.weighted ? 2 * l + 1 : 1) * lanes[l];
    if (k.loads && sum != k.expected) {{
      std::printf("%s (%s): checksum MISMATCH %u, expected %u: the loads did not read the planned bytes\\n",
                  k.name, k.access, sum, k.expected);
      bad = 1;
    }} else {{
      std::printf("%s (%s): ran%s\\n", k.name, k.access, k.loads ? ", checksum ok" : " (stores: not read back)");
    }}
  }}
  CHECK({rt}Free(out));
  return bad && argc < 2 ? 3 : 0;  // 3: a checksum differs (run.sh still measures; probe-compare reports it)
}}
""" + guard[1]
