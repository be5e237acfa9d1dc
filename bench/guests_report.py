#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/guests_report.py - parse, check and report a bench/guests run.

  build DIR SEEDS.json   raw tool outputs (DIR/samples.tsv, DIR/raw/*) ->
                         DIR/run.json, DIR/report.md, DIR/*.png, DIR/report.html
  check RUN.json         every configuration produced every figure (values
                         are not judged); exit 1 and a list when not
  compare A.json B.json  medians of B against A, flagged beyond the spread
  selftest               the parsers and the tie rule on fixed texts

Owns the parsers of ping, iperf3 -J and sockperf output, the CPU accounting
(clock ticks of every thread of each QEMU and of vhostd, before and after
each sample) and the rules for calling a difference: medians over the reps,
the spread is [min, max] of the reps, and two results whose spreads overlap
are a tie.  A single rep has no spread: it counts as +-tol/2 of its value
(--tol, default 10 %), so two single reps within ~10 % tie.
"""
import base64
import fnmatch
import json
import os
import re
import statistics
import sys

# ---- what each configuration must produce (the checker's list) ----
HOST_TESTS = ["ping_h2g", "flood_h2g", "floodl_h2g", "tcp_h2g_1", "tcp_g2h_1", "tcp_h2g_4",
              "tcp_g2h_4", "tcp_bidir_h"]
G2G_TESTS = ["ping_g2g", "flood_g2g", "tcp_g2g_1", "tcp_g2g_4", "tcp_bidir_g"]
# The fixed --poll-us configurations run only what the polling comparison
# reads (bench/guests' POLL_TESTS), with vhostd's own command lines.
POLL_CONFIGS = ["vhostd-poll0", "vhostd-poll50"]
POLL_TESTS = ["ping_h2g", "ping_g2g", "tcp_g2g_1", "tcp_g2g_4"]
# The -nooff twins run the TCP tests only (bench/guests' NOOFF_TESTS), with
# the guest NIC's checksum and segmentation offloads off.
NOOFF_CONFIGS = ["e1000-nooff", "rtl8139-nooff", "virtio-tap-nooff", "vhostd-nooff"]
NOOFF_VIRTIO = ["virtio-tap-nooff", "vhostd-nooff"]	# two virtio-net guests each
NOOFF_OFF = ("tx-checksumming", "tcp-segmentation-offload")	# must read "off"
NOOFF_FEATURES = ("CSUM", "GUEST_CSUM", "HOST_TSO4", "HOST_TSO6", "GUEST_TSO4",
                  "GUEST_TSO6")	# must be absent (virtio-net)
FIGURES = {
    "ping": ["min_ms", "avg_ms", "max_ms", "mdev_ms", "loss_pct"],
    "flood": ["pps", "loss_pct", "avg_ms"],
    "tcp": ["gbps", "bytes", "bytes_per_cpu_s"],
    "rr": ["tps", "p50_us", "p99_us", "trans_per_cpu_s"],
}
LABELS = {
    "native": "native netns <-> netns (veth)",
    "e1000": "e1000 + TAP (QEMU emulation)",
    "rtl8139": "rtl8139 + TAP (QEMU emulation)",
    "virtio-tap": "virtio-net + TAP, QEMU userspace backend (Linux bridge)",
    "vhost-net": "virtio-net + TAP + vhost-net",
    "vhostd": "virtio-net on vhostd (vhost-user, TAP port for the host)",
    "vhostd-poll0": "vhostd --poll-us 0",
    "vhostd-poll50": "vhostd --poll-us 50",
    "e1000-nooff": "e1000 + TAP, offloads off",
    "rtl8139-nooff": "rtl8139 + TAP, offloads off",
    "virtio-tap-nooff": "virtio-net + TAP (QEMU userspace), offloads off",
    "vhostd-nooff": "vhostd, offloads off (offload=off, guest's off)",
}


def base_config(cfg):
    """The configuration a -nooff one is the twin of."""
    return cfg[:-len("-nooff")] if cfg.endswith("-nooff") else cfg


def test_kind(test):
    k = test.split("_")[0]
    return "flood" if k == "floodl" else k


def expected(cfg, rr_sizes, only=""):
    """The tests configuration cfg must produce; only: bench/guests --tests
    (glob patterns, empty: every test)."""
    pats = (only or "").split()
    return [t for t in expected_all(cfg, rr_sizes)
            if not pats or any(fnmatch.fnmatchcase(t, p) for p in pats)]


def expected_all(cfg, rr_sizes):
    rr = lambda where: ["rr_%s_%s" % (where, s) for s in rr_sizes]
    if cfg == "native":
        t = ["ping_ns", "flood_ns", "floodl_ns"] + rr("ns")
    elif cfg in ("e1000", "rtl8139"):
        t = HOST_TESTS + rr("h2g")
    elif cfg in ("virtio-tap", "vhost-net", "vhostd"):
        t = HOST_TESTS + G2G_TESTS + rr("h2g") + rr("g2g")
    elif cfg in POLL_CONFIGS:
        t = POLL_TESTS + rr("h2g") + rr("g2g")
    elif cfg in NOOFF_CONFIGS:
        tcp = lambda l: [x for x in l if x.startswith("tcp_")]
        t = tcp(HOST_TESTS) + (tcp(G2G_TESTS) if cfg in NOOFF_VIRTIO else [])
    else:
        t = []
    return t


# ---- parsers ----
def parse_ping(text, flood):
    f = {}
    m = re.search(r"(\d+) packets transmitted, (\d+) received.*?(\d+(?:\.\d+)?)% packet loss,"
                  r" time (\d+)ms", text)
    if m:
        tx, rx, loss, t = int(m[1]), int(m[2]), float(m[3]), int(m[4])
        f.update(tx=tx, rx=rx, loss_pct=loss, time_ms=t)
        if flood and t > 0:
            f["pps"] = rx / (t / 1000.0)
    m = re.search(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", text)
    if m:
        f.update(min_ms=float(m[1]), avg_ms=float(m[2]), max_ms=float(m[3]),
                 mdev_ms=float(m[4]))
    return f


def parse_iperf3(text):
    i = text.find("{")
    if i < 0:
        return {}
    try:
        j = json.loads(text[i:])
    except ValueError:
        return {}
    end = j.get("end", {})
    if "error" in j or "sum_received" not in end:
        return {"error": j.get("error", "no sum_received")}
    r = end["sum_received"]
    f = {"bytes": r["bytes"], "seconds": r["seconds"]}
    fwd_bps = r["bits_per_second"]
    if "sum_received_bidir_reverse" in end:
        rev = end["sum_received_bidir_reverse"]
        f["bytes"] += rev["bytes"]
        f["gbps_fwd"] = fwd_bps / 1e9
        f["gbps_rev"] = rev["bits_per_second"] / 1e9
        f["gbps"] = (fwd_bps + rev["bits_per_second"]) / 1e9
    else:
        f["gbps"] = fwd_bps / 1e9
    f["retransmits"] = end.get("sum_sent", {}).get("retransmits")
    return f


def parse_sockperf(text):
    f = {}
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    m = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=(\d+); "
                  r"ReceivedMessages=(\d+)", text)
    if m and float(m[1]) > 0:
        f.update(run_s=float(m[1]), transactions=int(m[3]), tps=int(m[3]) / float(m[1]))
    for key, pat in (("p50_us", r"percentile 50\.000 =\s*([\d.]+)"),
                     ("p99_us", r"percentile 99\.000 =\s*([\d.]+)"),
                     ("avg_us", r"avg-latency=([\d.]+)")):
        m = re.search(pat, text)
        if m:
            f[key] = float(m[1])
    return f


def read_cpu(path):
    """{(pid, tid): (comm, ticks)} from a cpu_snap file."""
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                p = line.split()
                if len(p) == 5:
                    out[(p[0], p[1])] = (p[2], int(p[3]) + int(p[4]))
    except OSError:
        pass
    return out


def read_sig(path):
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                p = line.split()
                if len(p) == 2 and re.match(r"^\d+$", p[1]):
                    out[p[0]] = int(p[1])
    except OSError:
        pass
    return out


def sig_delta(base):
    """Contention signals over one sample (bench/guests sig_snap()): the
    system's CPU pressure and worker 0's run delay per mille of wall time,
    its lost polling time per mille of its polling time, its polling
    seconds and backoffs."""
    a, b = read_sig(base + ".sig0"), read_sig(base + ".sig1")
    f = {}
    wall = b.get("wall_ns", 0) - a.get("wall_ns", 0)
    if wall <= 0:
        return f
    d = lambda k: b[k] - a[k] if k in a and k in b else None
    if d("psi_us") is not None:
        f["sig_psi_pm"] = d("psi_us") * 1e6 / wall
    if d("rundelay_ns") is not None:
        f["sig_rundelay_pm"] = d("rundelay_ns") * 1e3 / wall
    if d("poll_ns") is not None:
        f["sig_poll_s"] = d("poll_ns") / 1e9
        if d("poll_ns") > 0 and d("lost_ns") is not None:
            f["sig_lost_pm"] = d("lost_ns") * 1e3 / d("poll_ns")
    if d("backoffs") is not None:
        f["sig_backoffs"] = d("backoffs")
    return f


def read_sources(path):
    """{port: [poll object per source queue]} from a src_snap file (vhostctl
    show --json of each vhostd port as a sample left it), {} without one."""
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                if isinstance(o, dict) and "port" in o:
                    out[o["port"]] = o.get("sources") or []
    except OSError:
        pass
    return out


def gap_bound(pm, pct):
    """The bucket bound under which pct % of the gaps fall, as text ("<64us",
    "<2ms"; ">262ms": the last bucket, past every bound), "-" with no gaps: as vhostctl
    show's GAP50 and GAP90."""
    cum = 0
    for k, v in enumerate(pm or []):
        cum += v
        if cum and cum >= pct * 10:
            us, op = 1 << k, "<"
            if k == len(pm) - 1:	# everything longer than the last bound
                us, op = us // 2, ">"
            return "%s%dms" % (op, us // 1000) if us >= 2000 else "%s%dus" % (op, us)
    return "-"


def sources_txt(srcs):
    """One cell: each port's source queues as 'port: mode window, GAP50/GAP90'."""
    parts = []
    for port in sorted(srcs):
        for q in srcs[port]:
            w = q.get("window_ns", 0)
            parts.append("%s: %s%s, %s/%s" % (
                port, q.get("mode", "?"), " %dus" % (w // 1000) if w else "",
                gap_bound(q.get("gaps_pm"), 50), gap_bound(q.get("gaps_pm"), 90)))
    return "; ".join(parts) or "-"


def cpu_delta(base, hz):
    """CPU seconds per role and per role/thread during one sample."""
    roles = {}
    try:
        with open(base + ".roles") as fh:
            for line in fh:
                p = line.split()
                if len(p) == 2:
                    roles[p[0]] = p[1]
    except OSError:
        pass
    a, b = read_cpu(base + ".cpu0"), read_cpu(base + ".cpu1")
    per_role, per_thread = {}, {}
    for key, (comm, t1) in b.items():
        t0 = a.get(key, (comm, 0))[1]
        d = max(0, t1 - t0) / hz
        role = roles.get(key[0], "pid" + key[0])
        per_role[role] = per_role.get(role, 0.0) + d
        th = per_thread.setdefault(role, {})
        th[comm] = th.get(comm, 0.0) + d
    return per_role, per_thread


def read_meta(d):
    meta = {}
    with open(os.path.join(d, "meta.txt")) as fh:
        for line in fh:
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    return meta


def build_run(d):
    meta = read_meta(d)
    hz = float(meta.get("clk_tck") or 100)
    samples, skipped, nics = [], {}, {}
    with open(os.path.join(d, "samples.tsv")) as fh:
        for line in fh:
            p = line.rstrip("\n").split("\t")
            if len(p) != 8:
                continue
            cfg, test, rep, kind, rc, t1, t2, ref = p
            if kind == "skip":
                skipped[cfg] = ref
                continue
            base = os.path.join(d, "raw", ref)
            try:
                text = open(base + ".out", errors="replace").read()
            except OSError:
                text = ""
            if kind in ("ping", "flood"):
                fig = parse_ping(text, kind == "flood")
            elif kind == "tcp":
                fig = parse_iperf3(text)
            else:
                fig = parse_sockperf(text)
            fig.update(sig_delta(base))
            per_role, per_thread = cpu_delta(base, hz)
            cpu = sum(per_role.values())
            if cpu > 0 and kind == "tcp" and "bytes" in fig:
                fig["bytes_per_cpu_s"] = fig["bytes"] / cpu
            if cpu > 0 and kind == "rr" and "transactions" in fig:
                fig["trans_per_cpu_s"] = fig["transactions"] / cpu
            if cfg == "native":	# no process of ours carries it: the kernel's
                fig.pop("bytes_per_cpu_s", None)
                fig.pop("trans_per_cpu_s", None)
            samples.append({
                "config": cfg, "test": test, "rep": int(rep), "kind": kind,
                "rc": int(rc), "t_start": float(t1), "t_end": float(t2),
                "wall_s": float(t2) - float(t1), "figures": fig,
                "cpu_s": per_role, "cpu_threads_s": per_thread,
                "cpu_s_total": cpu, "raw": "raw/" + ref + ".out",
                "sources": read_sources(base + ".src"),
                "tail": "" if rc == "0" and fig else text[-400:],
            })
    for cfg in meta.get("configs", "").split():
        path = os.path.join(d, "raw", cfg + ".nic")
        if os.path.exists(path):
            nics[cfg] = dict(l.rstrip("\n").partition("=")[::2] for l in open(path) if "=" in l)
    run = {"format": "vhostd-bench-guests/1", "meta": meta, "options": {
        k: meta.get(k) for k in ("quick", "reps", "t_tcp", "t_rr", "ping_n", "ping_i",
                                 "flood_n", "rr_sizes", "configs", "tests")},
           "skipped": skipped, "nics": nics, "samples": samples}
    run["summary"] = summarise(samples)
    return run


def summarise(samples):
    """{cfg: {test: {figure: {median, min, max, n, values}}}} over rc == 0 reps."""
    acc = {}
    for s in samples:
        if s["rc"] != 0:
            continue
        t = acc.setdefault(s["config"], {}).setdefault(s["test"], {})
        vals = dict(s["figures"])
        vals["cpu_s"] = s["cpu_s_total"]
        for role, v in s["cpu_s"].items():
            vals["cpu_s." + role] = v
        for k, v in vals.items():
            if isinstance(v, (int, float)) and v is not None:
                t.setdefault(k, []).append(v)
    out = {}
    for cfg, tests in acc.items():
        for test, figs in tests.items():
            for k, vs in figs.items():
                out.setdefault(cfg, {}).setdefault(test, {})[k] = {
                    "median": statistics.median(vs), "min": min(vs), "max": max(vs),
                    "n": len(vs), "values": vs}
    return out


def get(run, ref):
    cfg, test, fig = ref
    return run["summary"].get(cfg, {}).get(test, {}).get(fig)


def tie(a, b, tol=0.10):
    """True when a and b (summary cells) cannot be told apart: their spreads
    (min-max over the reps) overlap. A single rep has no spread of its own;
    it is given +-tol/2 of its value, so two single reps tie within ~tol."""
    def span(c):
        if c["n"] > 1:
            return c["min"], c["max"]
        h = abs(c["median"]) * tol / 2
        return c["median"] - h, c["median"] + h
    (a0, a1), (b0, b1) = span(a), span(b)
    return a1 >= b0 and b1 >= a0


# ---- checker ----
def check(run):
    meta = run["meta"]
    sizes = (run["options"].get("rr_sizes") or "").split()
    problems = []
    for cfg in (run["options"].get("configs") or "").split():
        if cfg in run["skipped"]:
            why = run["skipped"][cfg]
            if cfg == "vhost-net" and meta.get("vhost_net") == "absent":
                continue
            problems.append("%s: skipped: %s" % (cfg, why))
            continue
        reps = int(run["options"].get("reps") or 1)
        for test in expected(cfg, sizes, run["options"].get("tests")):
            kind = test_kind(test)
            cell = run["summary"].get(cfg, {}).get(test, {})
            got = [s for s in run["samples"] if s["config"] == cfg and s["test"] == test]
            bad = [s for s in got if s["rc"] != 0]
            if len(got) < reps:
                problems.append("%s %s: %d of %d reps ran" % (cfg, test, len(got), reps))
            for s in bad:
                problems.append("%s %s rep %d: rc %d: %s" % (
                    cfg, test, s["rep"], s["rc"], s["tail"][-160:].replace("\n", " ")))
            want = list(FIGURES[kind]) + ["cpu_s"]
            if cfg == "native":
                want = [w for w in want if "per_cpu" not in w and w != "cpu_s"]
            for fig in want:
                c = cell.get(fig)
                if c is None or c["n"] < reps:
                    problems.append("%s %s: figure %s missing (%s of %d reps)" % (
                        cfg, test, fig, c["n"] if c else 0, reps))
            if cfg != "native" and not cell.get("cpu_s", {}).get("median"):
                problems.append("%s %s: no CPU time recorded" % (cfg, test))
        if cfg in NOOFF_CONFIGS:
            problems += nooff_problems(cfg, run["nics"].get(cfg, {}))
    return problems


def nooff_problems(cfg, nic):
    """What says a -nooff configuration did not run with its offloads off:
    each guest's ethtool -k must read off for checksumming and TSO, and a
    virtio-net guest must not have negotiated a checksum or TSO feature."""
    out = []
    ks = {k: v for k, v in nic.items() if k.startswith("ethtool_k.")}
    if not ks:
        out.append("%s: no ethtool -k reading from the guests" % cfg)
    for k, v in sorted(ks.items()):
        for name in NOOFF_OFF:
            m = re.search(r"%s: (\w+)" % name, v)
            if not m or m[1] != "off":
                out.append("%s: %s: %s is %s, not off" % (cfg, k[10:], name,
                                                           m[1] if m else "not reported"))
    if cfg in NOOFF_VIRTIO:
        feats = (nic.get("features") or "").split()
        if not feats:
            out.append("%s: no negotiated features recorded" % cfg)
        on = [f for f in NOOFF_FEATURES if f in feats]
        if on:
            out.append("%s: offload features negotiated: %s" % (cfg, " ".join(on)))
    return out


# ---- report ----
def fmt(v, unit=""):
    if v is None:
        return "-"
    a = abs(v)
    s = ("%.3g" % v) if a < 100 else ("%.0f" % v)
    if a >= 1e6:
        s = "%.3gM" % (v / 1e6)
    return s + unit


def cell_txt(c):
    if not c:
        return "-"
    if c["n"] == 1:
        return fmt(c["median"])
    return "%s [%s-%s]" % (fmt(c["median"]), fmt(c["min"]), fmt(c["max"]))


TEST_TITLES = [
    ("ping_ns", "ping native netns -> netns", "avg_ms", "ms"),
    ("ping_h2g", "ping host -> guest", "avg_ms", "ms"),
    ("ping_g2g", "ping guest -> guest", "avg_ms", "ms"),
    ("flood_ns", "flood ping native", "pps", "pps"),
    ("flood_h2g", "flood ping host -> guest", "pps", "pps"),
    ("flood_g2g", "flood ping guest -> guest", "pps", "pps"),
    ("floodl_ns", "flood ping 1024 B, 120 in flight, native", "pps", "pps"),
    ("floodl_h2g", "flood ping 1024 B, 120 in flight, host -> guest", "pps", "pps"),
    ("tcp_h2g_1", "TCP host -> guest, 1 stream", "gbps", "Gbit/s"),
    ("tcp_g2h_1", "TCP guest -> host, 1 stream", "gbps", "Gbit/s"),
    ("tcp_h2g_4", "TCP host -> guest, 4 streams", "gbps", "Gbit/s"),
    ("tcp_g2h_4", "TCP guest -> host, 4 streams", "gbps", "Gbit/s"),
    ("tcp_bidir_h", "TCP host <-> guest, bidirectional (sum)", "gbps", "Gbit/s"),
    ("tcp_g2g_1", "TCP guest -> guest, 1 stream", "gbps", "Gbit/s"),
    ("tcp_g2g_4", "TCP guest -> guest, 4 streams", "gbps", "Gbit/s"),
    ("tcp_bidir_g", "TCP guest <-> guest, bidirectional (sum)", "gbps", "Gbit/s"),
]


def rr_titles(sizes):
    out = []
    for where, title in (("ns", "native"), ("h2g", "host <-> guest"), ("g2g", "guest <-> guest")):
        for s in sizes:
            out.append(("rr_%s_%s" % (where, s), "TCP RR %s B %s" % (s, title), "tps", "trans/s"))
    return out


POLL_CPU_BAR = 1.3	# issue 15: default's vhostd CPU-s under bulk TCP <= 1.3 x poll 0's


def poll_cpu_per_unit(kind, t):
    """vhostd CPU per unit of work, from summary medians: for TCP, CPU-s per
    Gbit transferred (cpu_s.vhostd / (Gbit/s * seconds)); for RR, CPU us per
    transaction; for ping, CPU us per echo reply."""
    cpu = t.get("cpu_s.vhostd", {}).get("median")
    if cpu is None:
        return None
    if kind == "tcp":
        g, sec = t.get("gbps", {}).get("median"), t.get("seconds", {}).get("median")
        return cpu / (g * sec) if g and sec else None
    if kind == "rr":
        n = t.get("transactions", {}).get("median")
        return cpu * 1e6 / n if n else None
    n = t.get("rx", {}).get("median")
    return cpu * 1e6 / n if n else None


def signal_section(run, cfgs):
    """Issue 15's contention signals per vhostd configuration and test:
    medians of the system's CPU pressure (PSI some) and worker 0's run
    delay, per mille of wall time; its lost polling time per mille of its
    polling time; its polling seconds; backoffs (the default only)."""
    vcfgs = [c for c in cfgs if c.startswith("vhostd")]
    # The sources column only where the run snapshot them (src_snap).
    has_src = any(s.get("sources") for s in run["samples"])
    rows = []
    for cfg in vcfgs:
        for test, figs in sorted(run["summary"].get(cfg, {}).items()):
            if "sig_psi_pm" not in figs and "sig_lost_pm" not in figs:
                continue
            m = lambda k: fmt(figs[k]["median"]) if k in figs else "-"
            last = [s for s in run["samples"] if s["config"] == cfg and s["test"] == test
                    and s.get("sources")]
            rows.append("| %s | %s | %s | %s | %s | %s | %s |%s" % (
                cfg, test, m("sig_psi_pm"), m("sig_rundelay_pm"), m("sig_lost_pm"),
                m("sig_poll_s"), m("sig_backoffs"),
                (" %s |" % (sources_txt(last[-1]["sources"]) if last else "-"))
                if has_src else ""))
    if not rows:
        return []
    return ["## Contention signals (vhostd's worker 0)", "",
            "Medians per test. PSI: the system's CPU pressure (/proc/pressure/cpu "
            "\"some\") per mille of wall time; run delay: worker 0's time runnable "
            "but not running (schedstat) per mille of wall time; lost: its polling "
            "time in which it did not run, per mille of its polling time (the "
            "signal --poll-us auto backs off on, at 50); polled: its seconds of "
            "polling dry queues; backoffs: how often auto turned polling off" +
            ("; sources: each port's source queues as the test's last rep left them "
             "(vhostctl show): mode, window, and the bounds under which half and nine "
             "tenths of its idle gaps fell." if has_src else "."), "",
            "| config | test | PSI some per mille | run delay per mille | lost per mille of "
            "polling | polled s | backoffs |" + (" sources at the end |" if has_src else ""),
            "|---|---|---|---|---|---|---|" + ("---|" if has_src else "")] + rows + [""]


def poll_section(run, cfgs, sizes):
    """'vhostd polling': the default (adaptive) against the fixed windows."""
    summ = run["summary"]
    fixed = [c for c in POLL_CONFIGS if c in cfgs and summ.get(c)]
    if "vhostd" not in cfgs or not summ.get("vhostd") or not fixed:
        return []
    shown = ["vhostd"] + fixed
    L = []
    L.append("## vhostd polling: auto (default) against --poll-us 0 and --poll-us 50")
    L.append("")
    L.append("Same run, same tests and command lines. Cell: median [min-max] of the test's "
             "figure; vhostd CPU s (median over the reps); vhostd CPU per unit: CPU-s per "
             "Gbit transferred (TCP), CPU us per transaction (RR), CPU us per echo reply "
             "(ping). Best fixed: the better of the fixed windows by the figure (higher "
             "Gbit/s and trans/s, lower ping avg). Verdict: `within spread` when the "
             "default's spread overlaps the best fixed one's (a single rep counts as +-5 %% "
             "of its value). CPU bar (TCP): default's vhostd CPU s / --poll-us 0's, "
             "at most %.1f." % POLL_CPU_BAR)
    L.append("")
    L.append("| test | " + " | ".join(LABELS.get(c, c) if c != "vhostd" else
                                       "vhostd auto (default)" for c in shown) +
             " | best fixed | default / best | verdict | CPU s default / poll 0 |")
    L.append("|---|" + "---|" * (len(shown) + 4))
    rows = ([("tcp_g2g_1", "TCP guest -> guest, 1 stream", "gbps", "Gbit/s"),
             ("tcp_g2g_4", "TCP guest -> guest, 4 streams", "gbps", "Gbit/s")] +
            [t for t in rr_titles(sizes) if not t[0].startswith("rr_ns")] +
            [("ping_h2g", "ping host -> guest", "avg_ms", "ms"),
             ("ping_g2g", "ping guest -> guest", "avg_ms", "ms")])
    per_unit = {"tcp": "CPU-s/Gbit", "rr": "CPU us/trans", "ping": "CPU us/echo"}
    worse, over = [], []
    for test, title, fig, unit in rows:
        kind = test_kind(test)
        tests = {c: summ.get(c, {}).get(test, {}) for c in shown}
        if not all(fig in t for t in tests.values()):
            continue
        cells = []
        for c in shown:
            t = tests[c]
            cells.append("%s %s; %s CPU s; %s %s" % (
                cell_txt(t[fig]), unit, fmt(t.get("cpu_s.vhostd", {}).get("median")),
                fmt(poll_cpu_per_unit(kind, t)), per_unit[kind]))
        lower = fig.endswith("_ms")
        pick = min if lower else max
        best = pick(fixed, key=lambda c: tests[c][fig]["median"])
        a, b = tests["vhostd"][fig], tests[best][fig]
        if tie(a, b):
            verdict = "within spread"
        elif (a["median"] < b["median"]) == lower:
            verdict = "default better"
        else:
            verdict = "default worse"
            worse.append(test)
        cpu_bar = "-"
        if kind == "tcp" and "vhostd-poll0" in fixed:
            ca = tests["vhostd"].get("cpu_s.vhostd", {}).get("median")
            cb = tests["vhostd-poll0"].get("cpu_s.vhostd", {}).get("median")
            if ca is not None and cb:
                r = ca / cb
                cpu_bar = "%s: %s" % (fmt(r), "<= %.1f: ok" % POLL_CPU_BAR
                                      if r <= POLL_CPU_BAR else "> %.1f" % POLL_CPU_BAR)
                if r > POLL_CPU_BAR:
                    over.append(test)
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            title, " | ".join(cells), LABELS.get(best, best),
            fmt(a["median"] / b["median"]) if b["median"] else "-", verdict, cpu_bar))
    L.append("")
    L.append("Default worse than the best fixed window beyond the spread: %s. TCP rows over "
             "the CPU bar: %s." % (", ".join(worse) or "none", ", ".join(over) or "none"))
    L.append("")
    return L


def offload_section(run, cfgs):
    """'Offloads on and off': each TCP test on every configuration that ran
    both ways, the two medians side by side, on / off, and per CPU-second;
    then the configurations against each other with the offloads off."""
    summ = run["summary"]
    pairs = [(base_config(c), c) for c in cfgs if c in NOOFF_CONFIGS and
             base_config(c) in cfgs and summ.get(c) and summ.get(base_config(c))]
    if not pairs:
        return []
    L = ["## Offloads on and off (TCP)", "",
         "Same run. Off: the guest NIC's checksum and segmentation offloads off "
         "(virtio-net: every offload property off, vhostd's ports `offload=off`; e1000 and "
         "rtl8139: `ethtool -K eth0 tx off sg off tso off` in the guest), so every frame "
         "is MTU-sized and checksummed by the guest's CPU. Cell: median [min-max] Gbit/s; "
         "on / off: the ratio of the medians, `tie` when the spreads overlap; per CPU-s: "
         "MB moved per host CPU-second (QEMU + vhostd), on / off.", "",
         "| test | " + " | ".join("%s on | off | on / off | MB per CPU-s on / off" % b
                                  for b, _ in pairs) + " |",
         "|---|" + "---|---|---|---|" * len(pairs)]
    for test, title, fig, unit in TEST_TITLES:
        if not test.startswith("tcp_"):
            continue
        row, any_ = [], False
        for b, c in pairs:
            on, off = summ[b].get(test, {}), summ[c].get(test, {})
            if fig not in on or fig not in off:
                row += ["-"] * 4
                continue
            any_ = True
            r = fmt(on[fig]["median"] / off[fig]["median"]) if off[fig]["median"] else "-"
            if tie(on[fig], off[fig]):
                r += " (tie)"
            eff = lambda t: fmt(t["bytes_per_cpu_s"]["median"] / 1e6) \
                if "bytes_per_cpu_s" in t else "-"
            row += [cell_txt(on[fig]), cell_txt(off[fig]), r, "%s / %s" % (eff(on), eff(off))]
        if any_:
            L.append("| %s | %s |" % (title, " | ".join(row)))
    L.append("")
    # Offloads off, configurations against each other.
    cross = [("vhostd-nooff", "virtio-tap-nooff"), ("virtio-tap-nooff", "e1000-nooff"),
             ("virtio-tap-nooff", "rtl8139-nooff")]
    cross = [(a, b) for a, b in cross if a in cfgs and b in cfgs and summ.get(a) and summ.get(b)]
    if cross:
        L += ["Offloads off, one configuration over another (median over median; `tie` when "
              "the spreads overlap):", "",
              "| test | " + " | ".join("%s / %s" % ab for ab in cross) + " |",
              "|---|" + "---|" * len(cross)]
        for test, title, fig, unit in TEST_TITLES:
            if not test.startswith("tcp_"):
                continue
            row = []
            for a, b in cross:
                ca, cb = summ[a].get(test, {}).get(fig), summ[b].get(test, {}).get(fig)
                if not ca or not cb or not cb["median"]:
                    row.append("-")
                    continue
                row.append(fmt(ca["median"] / cb["median"]) + (" (tie)" if tie(ca, cb) else ""))
            if any(x != "-" for x in row):
                L.append("| %s | %s |" % (title, " | ".join(row)))
        L.append("")
    return L


def report_md(run, seeds, charts):
    m = run["meta"]
    sizes = (run["options"].get("rr_sizes") or "").split()
    cfgs = [c for c in (run["options"].get("configs") or "").split()]
    L = []
    L.append("# bench/guests run %s" % m.get("stamp"))
    L.append("")
    L.append("Host: %s, %s CPUs, kernel %s; QEMU: %s; accelerator **%s**, guest CPU model "
             "`%s`, %s RAM, 1 vCPU, guest kernel %s; /dev/kvm %s; /dev/vhost-net %s." % (
                 m.get("host_cpu"), m.get("host_ncpu"), m.get("host_kernel"), m.get("qemu"),
                 m.get("accel"), m.get("cpu_model"), m.get("guest_mem"), m.get("guest_kernel"),
                 m.get("kvm"), m.get("vhost_net")))
    L.append("Options: quick=%s, reps=%s, TCP %s s (iperf3 3.12), RR %s s per size (sockperf "
             "TCP ping-pong, full RTT), ping %s at %s s, flood %s. Load average %s -> %s. "
             "vhostd %s. Wall time %s s." % (
                 m.get("quick"), m.get("reps"), m.get("t_tcp"), m.get("t_rr"), m.get("ping_n"),
                 m.get("ping_i"), m.get("flood_n"), m.get("loadavg_start"),
                 m.get("loadavg_end"), m.get("vhostd_rev"), m.get("wall_s")))
    L.append("")
    L.append("Cells: median [min-max] over the reps. Under TCG the guest CPU is emulated: "
             "absolute figures say nothing about KVM; only ratios between configurations of "
             "this one run mean something, and even those only where the emulated guest is "
             "not what bounds both.")
    L.append("")
    for c, why in run["skipped"].items():
        L.append("- **%s skipped**: %s" % (c, why))
    if run["skipped"]:
        L.append("")
    for c, nic in run["nics"].items():
        L.append("- %s: guest driver `%s`%s" % (c, nic.get("driver", "?"),
                 (", features " + nic["features"]) if nic.get("features") else ""))
    L.append("")
    # Main table: one row per test, one column per configuration.
    L.append("## Figures per configuration")
    L.append("")
    L.append("| test | " + " | ".join(cfgs) + " |")
    L.append("|---|" + "---|" * len(cfgs))
    for test, title, fig, unit in TEST_TITLES + rr_titles(sizes):
        cells = [run["summary"].get(c, {}).get(test, {}).get(fig) for c in cfgs]
        if not any(cells):
            continue
        # The best guest configuration in bold, those tied with it marked "=".
        guest = [x for c, x in zip(cfgs, cells) if x and c != "native"]
        best = None
        if guest:
            pick = min if fig.endswith("_ms") else max
            best = pick(guest, key=lambda x: x["median"])
        row = []
        for c, x in zip(cfgs, cells):
            t = cell_txt(x)
            if x and best and c != "native" and len(guest) > 1:
                if x is best:
                    t = "**%s**" % t
                elif tie(x, best):
                    t = "= " + t
            row.append(t)
        L.append("| %s (%s) | %s |" % (title, unit, " | ".join(row)))
    L.append("")
    L.append("Bold: the best guest configuration of the row; `=`: a tie with it (spreads "
             "overlap; a single rep counts as +-5 % of its value).")
    L.append("")
    L += offload_section(run, cfgs)
    L += poll_section(run, cfgs, sizes)
    L += signal_section(run, cfgs)
    L.append("## Latency detail, per-hop cost and CPU")
    L.append("")
    L.append("Per-hop cost: the configuration's avg RTT minus the native netns <-> netns avg "
             "RTT of this run (ping, not flood). CPU: seconds of the QEMU process(es) and "
             "vhostd over the sample (every thread, /proc/PID/task/*/stat); per CPU-s: "
             "bytes or transactions divided by that.")
    L.append("")
    nat = get(run, ("native", "ping_ns", "avg_ms"))
    L.append("| config | path | min/avg/max/mdev ms | per-hop us | flood pps (loss %) |")
    L.append("|---|---|---|---|---|")
    for c in cfgs:
        for where, ptest, ftest in (("host", "ping_h2g", "flood_h2g"),
                                    ("guest", "ping_g2g", "flood_g2g"),
                                    ("native", "ping_ns", "flood_ns")):
            p = run["summary"].get(c, {}).get(ptest)
            if not p:
                continue
            mm = "/".join(fmt(p.get(k, {}).get("median")) for k in
                          ("min_ms", "avg_ms", "max_ms", "mdev_ms"))
            hop = "-"
            if nat and p.get("avg_ms") and c != "native":
                hop = fmt((p["avg_ms"]["median"] - nat["median"]) * 1000)
            fl = run["summary"].get(c, {}).get(ftest, {})
            fp = "%s (%s)" % (cell_txt(fl.get("pps")), fmt(fl.get("loss_pct", {}).get("median"))) \
                if fl else "-"
            L.append("| %s | %s | %s | %s | %s |" % (c, where, mm, hop, fp))
    L.append("")
    L.append("| config | test | figure | CPU s (per process) | per CPU-s |")
    L.append("|---|---|---|---|---|")
    for c in cfgs:
        for test, cellv in sorted(run["summary"].get(c, {}).items()):
            kind = test_kind(test)
            if kind not in ("tcp", "rr") or c == "native":
                continue
            fig = "gbps" if kind == "tcp" else "tps"
            eff = "bytes_per_cpu_s" if kind == "tcp" else "trans_per_cpu_s"
            roles = ", ".join("%s %s" % (k[6:], fmt(v["median"])) for k, v in sorted(cellv.items())
                              if k.startswith("cpu_s."))
            L.append("| %s | %s | %s %s | %s | %s |" % (
                c, test, cell_txt(cellv.get(fig)), "Gbit/s" if kind == "tcp" else "trans/s",
                roles, cell_txt(cellv.get(eff))))
    L.append("")
    L.append("Threads (CPU s summed over every sample of the configuration, top 6; QEMU "
             "names them with `debug-threads=on`):")
    L.append("")
    for c in cfgs:
        tot = {}
        for smp in run["samples"]:
            if smp["config"] != c:
                continue
            for role, th in smp["cpu_threads_s"].items():
                for comm, v in th.items():
                    tot[(role, comm)] = tot.get((role, comm), 0.0) + v
        if tot:
            top = sorted(tot.items(), key=lambda kv: -kv[1])[:6]
            L.append("- %s: %s" % (c, ", ".join("%s/%s %s" % (r, cm, fmt(v))
                                                for (r, cm), v in top)))
    L.append("")
    L.append("RR p50 / p99 (us, full round trip):")
    L.append("")
    L.append("| test | " + " | ".join(cfgs) + " |")
    L.append("|---|" + "---|" * len(cfgs))
    for test, title, _, _ in rr_titles(sizes):
        row = []
        for c in cfgs:
            t = run["summary"].get(c, {}).get(test, {})
            row.append("%s / %s" % (fmt(t["p50_us"]["median"]), fmt(t["p99_us"]["median"]))
                       if "p50_us" in t and "p99_us" in t else "-")
        if all(x == "-" for x in row):
            continue
        L.append("| %s | %s |" % (title, " | ".join(row)))
    L.append("")
    # Seeds.
    L.append("## Beside the seeds (their KVM figures, ours under %s)" % m.get("accel"))
    L.append("")
    L.append("Absolute ours/theirs ratios compare an emulated CPU of today with real "
             "hardware of 2008-2011: they are printed because they were asked for, "
             "and mean little. The relative table below is the one to read.")
    L.append("")
    L.append("| seed | their figure | theirs | ours (config, test) | ours | ours / theirs |")
    L.append("|---|---|---|---|---|---|")
    for s in seeds["figures"]:
        c = get(run, s["ours"])
        ratio = fmt(c["median"] / s["value"]) if c and s["value"] else "-"
        L.append("| %s | %s | %s %s | %s %s | %s | %s |" % (
            s["seed"], s["what"], fmt(s["value"]), s["unit"], s["ours"][0], s["ours"][1],
            cell_txt(c), ratio))
    L.append("")
    L.append("Relative: a ratio of two configurations within one run, beside the same ratio "
             "in the seed. `tie` when the two spreads overlap (a single rep counts as +-5 % of its value).")
    L.append("")
    L.append("| seed | ratio | theirs | ours | verdict |")
    L.append("|---|---|---|---|---|")
    for s in seeds["relative"]:
        a, b = get(run, s["a"]), get(run, s["b"])
        if a and b and b["median"]:
            ours = fmt(a["median"] / b["median"])
            verdict = "tie (spreads overlap)" if tie(a, b) else "%s higher" % "/".join(
                (s["a"] if a["median"] > b["median"] else s["b"])[:2])
        else:
            ours, verdict = "-", "not measured"
        L.append("| %s | %s (%s / %s) | %s | %s | %s |" % (
            s["seed"], s["what"], "/".join(s["a"][:2]), "/".join(s["b"][:2]),
            fmt(s["value"]), ours, verdict))
    for h in seeds["hops"]:
        p = get(run, (h["ours"], "ping_h2g", "avg_ms"))
        ours = fmt((p["median"] - nat["median"]) * 1000) if p and nat else "-"
        L.append("| %s | %s (ours: %s) | %s us | %s us | |" % (
            h["seed"], h["what"], h["ours"], h["value_us"], ours))
    L.append("")
    L.append("Charts: " + ", ".join("`%s`" % os.path.basename(p) for p in charts))
    L.append("")
    return "\n".join(L)


def charts(run, d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = (run["options"].get("rr_sizes") or "").split()
    cfgs = (run["options"].get("configs") or "").split()
    tcp_tests = [t for t in TEST_TITLES if t[0].startswith("tcp")]
    on_cfgs = [c for c in cfgs if c not in NOOFF_CONFIGS]
    # Each -nooff configuration beside its twin, hatched.
    off_cfgs = []
    for c in cfgs:
        if c in NOOFF_CONFIGS and base_config(c) in cfgs:
            off_cfgs += [base_config(c), c]
    groups = [
        ("tcp.png", "TCP throughput (Gbit/s, median, bars: min-max)", tcp_tests, "gbps",
         on_cfgs),
        ("offloads.png", "TCP throughput, offloads on and off (hatched) (Gbit/s)",
         tcp_tests, "gbps", off_cfgs),
        ("latency.png", "ping avg RTT (ms)", [t for t in TEST_TITLES if t[0].startswith("ping")],
         "avg_ms", cfgs),
        ("flood.png", "flood ping (packets/s)", [t for t in TEST_TITLES if t[0].startswith("flood")],
         "pps", cfgs),
        ("rr.png", "TCP request/response (transactions/s)", rr_titles(sizes), "tps", cfgs),
        ("efficiency.png", "bytes per host CPU-second (QEMU + vhostd)", tcp_tests,
         "bytes_per_cpu_s", on_cfgs),
    ]
    out = []
    for fname, title, tests, fig, gcfgs in groups:
        present = [c for c in gcfgs if any(get(run, (c, t[0], fig)) for t in tests)]
        tests = [t for t in tests if any(get(run, (c, t[0], fig)) for c in present)]
        if not present or not tests:
            continue
        fig_, ax = plt.subplots(figsize=(max(6, 1.2 * len(tests) + 3), 4.5))
        w = 0.8 / len(present)
        for i, c in enumerate(present):
            xs, ys, lo, hi = [], [], [], []
            for j, t in enumerate(tests):
                v = get(run, (c, t[0], fig))
                if not v:
                    continue
                xs.append(j + i * w)
                ys.append(v["median"])
                lo.append(v["median"] - v["min"])
                hi.append(v["max"] - v["median"])
            # A -nooff twin keeps its configuration's colour, hatched.
            col = "C%d" % (present.index(base_config(c)) if base_config(c) in present else i)
            ax.bar(xs, ys, w, yerr=[lo, hi], capsize=2, label=c, color=col,
                   hatch="//" if c in NOOFF_CONFIGS else None,
                   edgecolor="white" if c in NOOFF_CONFIGS else None)
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(tests))])
        ax.set_xticklabels([t[1] for t in tests], rotation=30, ha="right", fontsize=7)
        ax.set_title("%s - %s, %s" % (title, run["meta"].get("accel"), run["meta"].get("stamp")),
                     fontsize=9)
        if fname in ("latency.png", "flood.png", "rr.png"):
            ax.set_yscale("log")	# native is 10-100x the guests
        ax.legend(fontsize=7)
        fig_.tight_layout()
        p = os.path.join(d, fname)
        fig_.savefig(p, dpi=90)
        plt.close(fig_)
        out.append(p)
    return out


def md_to_html(md, pngs):
    import html
    body, in_table = [], False
    for line in md.split("\n"):
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-") for c in cells):
                continue
            if not in_table:
                body.append("<table>")
                in_table = True
                tag = "th"
            else:
                tag = "td"
            body.append("<tr>" + "".join("<%s>%s</%s>" % (tag, html.escape(c), tag)
                                         for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("#"):
            n = len(line) - len(line.lstrip("#"))
            body.append("<h%d>%s</h%d>" % (n, html.escape(line.lstrip("# ")), n))
        elif line.strip():
            body.append("<p>%s</p>" % html.escape(line))
    if in_table:
        body.append("</table>")
    for p in pngs:
        b64 = base64.b64encode(open(p, "rb").read()).decode()
        body.append('<p><img alt="%s" src="data:image/png;base64,%s"></p>' % (
            html.escape(os.path.basename(p)), b64))
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>bench/guests</title>"
            "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
            "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
            "padding:2px 6px}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def cmd_build(d, seeds_path):
    run = build_run(d)
    seeds = json.load(open(seeds_path))
    run["seeds"] = seeds
    with open(os.path.join(d, "run.json"), "w") as fh:
        json.dump(run, fh, indent=1, sort_keys=True)
    pngs = charts(run, d)
    md = report_md(run, seeds, pngs)
    with open(os.path.join(d, "report.md"), "w") as fh:
        fh.write(md)
    with open(os.path.join(d, "report.html"), "w") as fh:
        fh.write(md_to_html(md, pngs))
    problems = check(run)
    print(md)
    if problems:
        print("check: %d figure(s) missing (bench/guests --check %s):" % (
            len(problems), os.path.join(d, "run.json")), file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print("check: every configuration produced every figure", file=sys.stderr)
    return 0


def cmd_check(path):
    run = json.load(open(path))
    problems = check(run)
    cfgs = (run["options"].get("configs") or "").split()
    for p in problems:
        print("MISSING " + p)
    n = sum(len(expected(c, (run["options"].get("rr_sizes") or "").split(),
                         run["options"].get("tests")))
            for c in cfgs if c not in run["skipped"])
    if problems:
        print("FAIL bench-guests-check: %d problem(s), %d tests expected" % (len(problems), n))
        return 1
    print("PASS bench-guests-check: %d configurations (%s skipped: %s), %d tests, every figure "
          "present" % (len(cfgs), len(run["skipped"]), ", ".join(run["skipped"]) or "none", n))
    return 0


def cmd_compare(pa, pb, tol):
    a, b = json.load(open(pa)), json.load(open(pb))
    print("A: %s (%s, reps %s)  B: %s (%s, reps %s)" % (
        pa, a["meta"].get("stamp"), a["meta"].get("reps"),
        pb, b["meta"].get("stamp"), b["meta"].get("reps")))
    flagged = 0
    keys = ("avg_ms", "pps", "gbps", "tps", "p50_us", "p99_us", "bytes_per_cpu_s",
            "trans_per_cpu_s", "loss_pct")
    print("%-13s %-13s %-16s %12s %12s %8s  %s" % ("config", "test", "figure", "A", "B", "B/A",
                                                  "verdict"))
    for cfg in sorted(set(a["summary"]) | set(b["summary"])):
        for test in sorted(set(a["summary"].get(cfg, {})) | set(b["summary"].get(cfg, {}))):
            for k in keys:
                ca = a["summary"].get(cfg, {}).get(test, {}).get(k)
                cb = b["summary"].get(cfg, {}).get(test, {}).get(k)
                if not ca and not cb:
                    continue
                if not ca or not cb:
                    print("%-13s %-13s %-16s %12s %12s %8s  only in %s" % (
                        cfg, test, k, cell_or(ca), cell_or(cb), "-", "A" if ca else "B"))
                    continue
                same = tie(ca, cb, tol)
                if not same:
                    flagged += 1
                print("%-13s %-13s %-16s %12s %12s %8s  %s" % (
                    cfg, test, k, cell_or(ca), cell_or(cb),
                    "%.3f" % (cb["median"] / ca["median"]) if ca["median"] else "-",
                    "within spread" if same else "DIFFERS (beyond the spread)"))
    print("%d figure(s) differ beyond the spread (tolerance for single reps: %.0f %%)" % (
        flagged, tol * 100))
    return 1 if flagged else 0


def cell_or(c):
    return fmt(c["median"]) if c else "-"


SELFTEST_PING = """PING 198.18.0.11 (198.18.0.11) 56(84) bytes of data.

--- 198.18.0.11 ping statistics ---
2000 packets transmitted, 1990 received, 0.5% packet loss, time 400ms
rtt min/avg/max/mdev = 0.068/0.178/5.366/0.295 ms, ipg/ewma 0.218/0.148 ms
"""
SELFTEST_IPERF3 = """{"start": {}, "end": {
 "sum_sent": {"bytes": 1000, "retransmits": 3},
 "sum_received": {"seconds": 3.0, "bytes": 750000000, "bits_per_second": 2.0e9},
 "sum_sent_bidir_reverse": {"bytes": 10},
 "sum_received_bidir_reverse": {"seconds": 3.0, "bytes": 375000000, "bits_per_second": 1.0e9}}}
"""
SELFTEST_SOCKPERF = """sockperf: [Valid Duration] RunTime=1.600 sec; SentMessages=3200; ReceivedMessages=3200
sockperf: \x1b[2;35m====> avg-latency=500.000 (std-dev=10.0)\x1b[0m
sockperf: ---> percentile 99.000 = 2000.500
sockperf: ---> percentile 50.000 =  400.250
"""


def cmd_selftest():
    """The parsers and the tie rule on fixed texts (no guests, milliseconds)."""
    p = parse_ping(SELFTEST_PING, True)
    assert p["tx"] == 2000 and p["rx"] == 1990 and p["loss_pct"] == 0.5, p
    assert abs(p["pps"] - 4975) < 1e-6 and p["avg_ms"] == 0.178 and p["mdev_ms"] == 0.295, p
    i = parse_iperf3("noise before\n" + SELFTEST_IPERF3)
    assert abs(i["gbps"] - 3.0) < 1e-9 and i["bytes"] == 1125000000, i
    assert abs(i["gbps_fwd"] - 2.0) < 1e-9 and i["retransmits"] == 3, i
    assert parse_iperf3('{"error": "unable to connect"}') == {"error": "unable to connect"}
    r = parse_sockperf(SELFTEST_SOCKPERF.encode().decode("unicode_escape"))
    assert r["tps"] == 2000 and r["p50_us"] == 400.25 and r["p99_us"] == 2000.5, r
    assert r["avg_us"] == 500.0, r
    c = lambda *v: {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}
    assert tie(c(1, 2, 3), c(2.5, 4, 5)) and not tie(c(1, 2, 3), c(3.5, 4, 5))
    assert tie(c(100), c(109)) and not tie(c(100), c(120))
    assert tie(c(194), c(200, 210)) and not tie(c(150), c(200, 210))
    assert expected("vhost-net", ["256"]) == expected("vhostd", ["256"])
    poll = expected("vhostd-poll0", ["256"])
    assert poll == expected("vhostd-poll50", ["256"]) and set(poll) <= set(expected("vhostd", ["256"]))
    assert poll == ["ping_h2g", "ping_g2g", "tcp_g2g_1", "tcp_g2g_4", "rr_h2g_256", "rr_g2g_256"]
    # The polling section on made-up medians: one row per test all three have.
    tcp = lambda g, cpu: {"gbps": g, "seconds": c(10), "cpu_s.vhostd": c(cpu)}
    rr = lambda t, cpu: {"tps": t, "transactions": c(5000), "cpu_s.vhostd": c(cpu)}
    ping = lambda v: {"avg_ms": v, "rx": c(100), "cpu_s.vhostd": c(0.1)}
    run = {"summary": {
        "vhostd": {"tcp_g2g_1": tcp(c(2.0, 2.1, 2.2), 6.0), "tcp_g2g_4": tcp(c(3, 3.1, 3.2), 7.0),
                   "rr_g2g_256": rr(c(1000, 1100, 1200), 0.5), "rr_h2g_256": rr(c(900), 0.5),
                   "ping_g2g": ping(c(2.0, 2.2, 2.4))},
        "vhostd-poll0": {"tcp_g2g_1": tcp(c(1.5, 1.6, 1.7), 5.0),
                         "tcp_g2g_4": tcp(c(2, 2.1, 2.2), 5.0),
                         "rr_g2g_256": rr(c(1150, 1250, 1300), 0.4), "rr_h2g_256": rr(c(950), 0.4),
                         "ping_g2g": ping(c(3, 3.1, 3.2))},
        "vhostd-poll50": {"tcp_g2g_1": tcp(c(2.1, 2.3, 2.5), 10.0),
                          "tcp_g2g_4": tcp(c(2.5, 2.6, 2.7), 9.0),
                          "rr_g2g_256": rr(c(1500, 1600, 1700), 0.9),
                          "ping_g2g": ping(c(2.5, 2.6, 2.7))}}}
    cfgs = ["vhostd", "vhostd-poll0", "vhostd-poll50"]
    md = poll_section(run, cfgs, ["256"])
    assert md[0].startswith("## vhostd polling: auto (default) against --poll-us 0 and"), md
    row = lambda t, md=md: [x.strip() for x in
                            next(l for l in md if l.startswith("| " + t)).split("|")[1:-1]]
    r = row("TCP guest -> guest, 1 stream")
    assert r[1] == "2.1 [2-2.2] Gbit/s; 6 CPU s; 0.286 CPU-s/Gbit", r
    assert r[4:] == ["vhostd --poll-us 50", "0.913", "within spread", "1.2: <= 1.3: ok"], r
    assert row("TCP guest -> guest, 4 streams")[4:] == [
        "vhostd --poll-us 50", "1.19", "default better", "1.4: > 1.3"]
    r = row("TCP RR 256 B guest <-> guest")
    assert r[1].endswith("; 100 CPU us/trans") and r[4:7] == [
        "vhostd --poll-us 50", "0.688", "default worse"] and r[7] == "-", r
    assert row("ping guest -> guest")[4:7] == ["vhostd --poll-us 50", "0.846", "default better"]
    assert not [l for l in md if l.startswith("| TCP RR 256 B host")]	# poll50 lacks it
    assert md[-2].startswith("Default worse than the best fixed window beyond the spread: "
                             "rr_g2g_256. TCP rows over the CPU bar: tcp_g2g_4."), md[-2]
    two = poll_section(run, ["vhostd", "vhostd-poll0"], ["256"])
    assert row("TCP RR 256 B host", two)[3:6] == ["vhostd --poll-us 0", "0.947", "within spread"]
    assert poll_section(run, ["vhostd"], ["256"]) == []
    assert poll_section(run, ["vhostd-poll0", "vhostd-poll50"], ["256"]) == []
    assert expected("vhostd", ["64", "256"], "rr_g2g_* ping_h2g") == [
        "ping_h2g", "rr_g2g_64", "rr_g2g_256"]
    assert expected("e1000", ["64"], "rr_g2g_*") == []
    # The -nooff twins: TCP only; the checker reads their offloads off.
    assert expected("e1000-nooff", ["256"]) == ["tcp_h2g_1", "tcp_g2h_1", "tcp_h2g_4",
                                                "tcp_g2h_4", "tcp_bidir_h"]
    assert expected("vhostd-nooff", ["256"]) == expected("virtio-tap-nooff", ["256"]) == \
        expected("e1000-nooff", ["256"]) + ["tcp_g2g_1", "tcp_g2g_4", "tcp_bidir_g"]
    off = "tx-checksumming: off scatter-gather: off tcp-segmentation-offload: off "
    assert nooff_problems("e1000-nooff", {"ethtool_k.g1": off}) == []
    assert nooff_problems("e1000-nooff", {"ethtool_k.g1": off.replace(
        "segmentation-offload: off", "segmentation-offload: on")}) == [
        "e1000-nooff: g1: tcp-segmentation-offload is on, not off"]
    assert nooff_problems("rtl8139-nooff", {}) == [
        "rtl8139-nooff: no ethtool -k reading from the guests"]
    assert nooff_problems("vhostd-nooff", {"ethtool_k.g1": off, "ethtool_k.g2": off,
                                           "features": "MAC MRG_RXBUF VERSION_1"}) == []
    assert nooff_problems("virtio-tap-nooff", {"ethtool_k.g1": off,
                                               "features": "CSUM MAC HOST_TSO4"}) == [
        "virtio-tap-nooff: offload features negotiated: CSUM HOST_TSO4"]
    run = {"summary": {
        "vhostd": {"tcp_g2g_1": {"gbps": c(3.0, 3.2, 3.4), "bytes_per_cpu_s": c(2e8)}},
        "vhostd-nooff": {"tcp_g2g_1": {"gbps": c(1.0, 1.1, 1.2), "bytes_per_cpu_s": c(1e8)}},
        "virtio-tap-nooff": {"tcp_g2g_1": {"gbps": c(0.9, 1.0, 1.15)}}}}
    md = offload_section(run, ["vhostd", "vhostd-nooff", "virtio-tap-nooff"])
    assert md[0] == "## Offloads on and off (TCP)", md
    r = row("TCP guest -> guest, 1 stream", md)
    assert r[1:] == ["3.2 [3-3.4]", "1.1 [1-1.2]", "2.91", "200 / 100"], r
    r = [x.strip() for x in next(l for l in md if l.startswith("| TCP guest -> guest, 1")
                                 and l.count("|") == 3).split("|")[1:-1]]
    assert r == ["TCP guest -> guest, 1 stream", "1.1 (tie)"], r
    assert offload_section(run, ["vhostd"]) == []
    pm = [0] * 20
    pm[0], pm[7], pm[9] = 500, 300, 200
    assert (gap_bound(pm, 50), gap_bound(pm, 90), gap_bound([0] * 20, 50)) == \
        ("<1us", "<512us", "-"), pm
    pm = [0] * 19 + [1000]
    assert gap_bound(pm, 50) == ">262ms" and gap_bound([0] * 11 + [1000] + [0] * 8, 50) == "<2ms"
    assert sources_txt({"vm1": [{"mode": "poll", "window_ns": 64000, "gaps_pm": [1000] + [0] * 19},
                                {"mode": "sleep", "window_ns": 0}]}) == \
        "vm1: poll 64us, <1us/<1us; vm1: sleep, -/-"
    print("PASS bench-guests-selftest: parsers, tie rule, expected-figures table, "
          "polling section, offloads section and check")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return cmd_selftest()
    if len(argv) >= 3 and argv[1] == "build":
        return cmd_build(argv[2], argv[3] if len(argv) > 3 else
                         os.path.join(os.path.dirname(__file__), "guests_seeds.json"))
    if len(argv) == 3 and argv[1] == "check":
        return cmd_check(argv[2])
    if len(argv) >= 4 and argv[1] == "compare":
        tol = 0.10
        rest = argv[2:]
        if "--tol" in rest:
            i = rest.index("--tol")
            tol = float(rest[i + 1]) / 100.0
            del rest[i:i + 2]
        return cmd_compare(rest[0], rest[1], tol)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
