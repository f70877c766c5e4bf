"""The picture `mxforge bench --plot` and `mxforge.bench(plot=...)` draw.

Decode kernels are bound by bytes, latency and fixed costs, not by the
matrix cores, so the roofline that says the most is time against bytes:
each kernel's time (the MI355X model's estimate on emu, the measured median
with its 10th-90th percentile bar on hip) at the bytes it must move, beside
the floor (those bytes at 8 TB/s), its separated pipeline and the peer at
the same shape. Both axes are logarithmic.

Runs as a script too (`python3 bench_plot.py ROWS.json OUT.png`, what the
CLI does), importing nothing of mxforge: only matplotlib, with the Agg
backend (no display).
"""

import json
import sys

# MI355X's HBM3E bandwidth (docs/estimate.md): the floor's slope.
PEAK_BYTES_PER_US = 8e12 / 1e6


def _short(spec, items=4):
    """The spec's family and its first items: a canonical spec begins with
    its shape and rotation (no key table restated here)."""
    op, _, keys = spec.partition(":")
    return op + " " + ",".join(keys.split(",")[:items])


def draw(rows, path):
    """Writes the picture of `rows` (mxforge bench's JSON list) to `path`."""
    if not isinstance(rows, list) or not rows:
        raise ValueError("bench_plot: no rows to draw (a list of mxforge bench's JSON objects)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("drawing the bench needs matplotlib (Debian: apt install "
                          "python3-matplotlib): " + str(e)) from e

    hip = rows[0].get("device") == "hip"
    fig, ax = plt.subplots(figsize=(10, 7))
    points = []
    for r in rows:
        if "floor_us" not in r:
            raise ValueError("bench_plot: row %r has no floor_us" % r.get("spec"))
        nbytes = r["floor_us"] * PEAK_BYTES_PER_US
        t = r["median_us"] if hip else r["estimate_us"]
        points.append((nbytes, t))
        label = "%s  m=%d" % (_short(r["spec"]), r["m"])
        if hip:
            ax.errorbar([nbytes], [t], yerr=[[t - r["p10_us"]], [r["p90_us"] - t]], fmt="o",
                        capsize=3, label=label)
        else:
            ax.plot([nbytes], [t], "o", label=label)
        separated = r.get("separated_median_us" if hip else "separated_estimate_us")
        if separated:
            ax.plot([nbytes, nbytes], [t, separated], ":", color="grey")
            ax.plot([nbytes], [separated], "o", mfc="none", color="grey")
        if r.get("peer_estimate_us"):
            ax.plot([nbytes], [r["peer_estimate_us"]], "x", color="black", ms=8)
    xs = [p[0] for p in points]
    lo, hi = min(xs) / 2, max(xs) * 2
    ax.plot([lo, hi], [lo / PEAK_BYTES_PER_US, hi / PEAK_BYTES_PER_US], "-", color="red",
            label="floor: bytes at 8 TB/s")
    ax.plot([], [], "o", mfc="none", color="grey", label="separated pipeline (same bytes)")
    if any(r.get("peer_estimate_us") for r in rows):
        ax.plot([], [], "x", color="black", label="peer: AITER f4gemm, same shape (no rotation)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bytes each kernel must move (operands once)")
    ax.set_ylabel("microseconds per launch")
    ax.set_title("mxforge bench on %s: %s" % (
        "hip" if hip else "emu",
        "measured median, 10th-90th percentile" if hip
        else "MI355X model estimates, not measurements"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: bench_plot.py ROWS.json OUT.png\n")
        return 2
    try:
        with open(argv[1]) as f:
            rows = json.load(f)
        draw(rows, argv[2])
    except (OSError, ValueError, ImportError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
