#!/usr/bin/env python3
"""Interrupted and concurrent `mxforge quantize` runs into one folder (issue 34).

  writers.py MXFORGE WORKDIR interrupt SEED|random ROUNDS
      A sharded checkpoint is quantized once (the old outputs); then ROUNDS runs
      with --force into the same folder each get SIGINT or SIGTERM at a random
      moment (drawn from SEED) of a run, and a last one SIGKILL. After every
      signal the folder holds exactly the old outputs: the same names, the
      same bytes, no hidden temporary. After the SIGKILL (no handler runs) the
      next run removes what the killed one left and says so.
  writers.py MXFORGE WORKDIR concurrent SEED|random ROUNDS
      8 runs without --force into one new folder, started together, two specs
      alternating, ROUNDS times: exactly one succeeds, the others fail naming
      the lock or the existing output, and the folder is exactly the winner's
      checkpoint, never a mix.

Prints what it drew; exits non-zero with the reason on the first failure.
"""
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sttool  # noqa: E402

SPECS = ["quant_weight:RS=32,rot=hadamard_butterfly", "quant_weight:RS=0"]
SHARDS = 3


def fail(message):
    sys.exit("FAIL: " + message)


def make_checkpoint(directory):
    os.makedirs(directory, exist_ok=True)
    weight_map, total = {}, 0
    for s in range(SHARDS):
        shard = "model-%05d-of-%05d.safetensors" % (s + 1, SHARDS)
        tensors = []
        for layer in range(2):
            name = "m.l%d.s%d.q_proj.weight" % (layer, s)
            rows, cols = 256, 1024
            tensors.append((name, "BF16", [rows, cols],
                            sttool.tensor_bytes("BF16", [rows, cols], s * 7 + layer)))
            weight_map[name] = shard
        total += sttool.write(os.path.join(directory, shard), tensors, {"format": "pt"})
    index = os.path.join(directory, "model.safetensors.index.json")
    with open(index, "w") as f:
        sttool.json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
    return index


def command(mxforge, index, out, spec, force):
    args = [mxforge, "quantize", "--in", index, "--out", out, "--spec", spec,
            "--tensors", r".*q_proj\.weight", "--device", "emu"]
    return args + (["--force"] if force else [])


def snapshot(folder):
    """{name: bytes} of everything in folder, hidden names included."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


def run(args):
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return done.returncode, done.stderr.decode(errors="replace")


def interrupt(mxforge, work, rng, rounds):
    index = make_checkpoint(os.path.join(work, "in"))
    out = os.path.join(work, "out")
    args = command(mxforge, index, out, SPECS[0], force=True)
    start = time.monotonic()
    code, err = run(args)
    duration = time.monotonic() - start
    if code != 0:
        fail("the first run failed: " + err)
    old = snapshot(out)
    print("old outputs: %d files; an uninterrupted run takes %.2f s" % (len(old), duration))
    kinds = {}
    for r in range(rounds):
        which = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0.0, duration)
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        child.send_signal(which)
        child.wait(timeout=300)
        state = "finished" if child.returncode == 0 else "killed by %s" % signal.Signals(which).name
        kinds[state] = kinds.get(state, 0) + 1
        now = snapshot(out)
        if sorted(now) != sorted(old):
            fail("round %d (%s after %.3f s): the folder holds %s, not the old outputs %s"
                 % (r, signal.Signals(which).name, delay, sorted(now), sorted(old)))
        for name in old:
            if now[name] != old[name]:
                fail("round %d: %s changed" % (r, name))
    print("interrupted rounds: %s; after each, only the old outputs" % dict(sorted(kinds.items())))

    # SIGKILL: no handler runs, so temporaries may stay; the next run (which
    # holds the folder's lock, so nothing else writes there) removes those it
    # can prove are leftovers: ours by name, owner, and a process that is gone.
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(duration * 0.6)
    child.kill()
    child.wait(timeout=300)
    left = [name for name in os.listdir(out) if name.startswith(".")]
    gone = subprocess.Popen(["true"])
    gone.wait()
    shard = "model-00001-of-%05d.safetensors" % SHARDS
    stale = ".%s.tmp-%d-1-0" % (shard, gone.pid)      # a process that is gone: removed
    alive = ".%s.tmp-%d-1-0" % (shard, os.getpid())   # this one runs: kept
    foreign = ".notes.tmp-1"                           # not our pattern: kept
    for name in (stale, alive, foreign):
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"planted")
    code, err = run(args)
    if code != 0:
        fail("the run after a SIGKILL failed: " + err)
    removed = sorted(line.split("removed ", 1)[1].split(",", 1)[0].rsplit("/", 1)[-1]
                     for line in err.splitlines() if "a temporary an interrupted run left" in line)
    if removed != sorted(left + [stale]):
        fail("left by the SIGKILL %s, planted %s; the next run removed %s" % (left, stale, removed))
    now = snapshot(out)
    for name in (alive, foreign):
        if now.pop(name, None) != b"planted":
            fail("%s was removed although it is not a leftover of ours" % name)
    if now != old:
        fail("after the SIGKILL and a new run, the folder is not the checkpoint: %s" % sorted(now))
    print("SIGKILL left %d temporaries; the next run removed them and a planted stale one, "
          "kept a live process's and a foreign name" % len(left))


def concurrent(mxforge, work, rng, rounds):
    index = make_checkpoint(os.path.join(work, "in"))
    references = []
    for i, spec in enumerate(SPECS):
        out = os.path.join(work, "reference%d" % i)
        code, err = run(command(mxforge, index, out, spec, force=False))
        if code != 0:
            fail("reference run failed: " + err)
        references.append(snapshot(out))
    if references[0] == references[1]:
        fail("the two specs give the same checkpoint: a mix could not be seen")
    for r in range(rounds):
        out = os.path.join(work, "round%d" % r)
        order = list(range(8))
        rng.shuffle(order)
        children = []
        for w in order:
            children.append((w, subprocess.Popen(
                command(mxforge, index, out, SPECS[w % 2], force=False),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
        winners = []
        for w, child in children:
            _, err = child.communicate(timeout=300)
            if child.returncode == 0:
                winners.append(w)
            elif ("is being written by another mxforge process" not in err.decode()
                  and "exists; pass --force" not in err.decode()):
                fail("round %d: writer %d failed for another reason: %s" % (r, w, err.decode()))
        if len(winners) != 1:
            fail("round %d: %d writers succeeded (%s), not exactly one" % (r, len(winners), winners))
        if snapshot(out) != references[winners[0] % 2]:
            fail("round %d: the folder is not writer %d's checkpoint (a mix?)" % (r, winners[0]))
    print("%d rounds of 8 concurrent writers: one succeeded each time, the folder its checkpoint"
          % rounds)


def main(argv):
    mxforge, work, mode, rounds = argv[1], argv[2], argv[3], int(argv[5])
    # "random": a fresh seed each run, printed so that a failure can be replayed.
    seed = int.from_bytes(os.urandom(4), "little") if argv[4] == "random" else int(argv[4])
    print("seed %d (replay: writers.py MXFORGE DIR %s %d %d)" % (seed, mode, seed, rounds))
    rng = random.Random(seed)
    {"interrupt": interrupt, "concurrent": concurrent}[mode](mxforge, work, rng, rounds)


if __name__ == "__main__":
    main(sys.argv)
