"""The live benchmark runs end to end with tiny numbers and prints the lines it promises.

Its figures are read by people from ``manage.py bench_live``; nothing here depends on the
machine's speed: the runs check the shape of the output, never a time.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from combat.management.commands.bench_live import (
    Connects,
    Fanout,
    Figures,
    Step,
    TablesRun,
    fanout_line,
    fray_over_request,
    percentile,
    snapshot_seq,
    write_comparison,
    write_summary,
    write_targets,
)

MS = r"\d+\.\d ms"
RATIO = r"\d+\.\d\d"
FANOUT_LINE = re.compile(
    rf"^fanout N=(\d+): fray p50 {MS} p99 {MS}; bare p50 {MS} p99 {MS}; "
    rf"ratio p50 {RATIO} p99 {RATIO}; cpu/change fray -?{MS} bare -?{MS}$"
)
REQUEST_LINE = re.compile(
    r"^  request\+bare, a plain POST that group_sends the same bytes, until every socket had it: "
    rf"p50 {MS} p99 {MS} max {MS}; first to last socket p50 {MS}; the POST answered p50 {MS}; "
    rf"server CPU -?{MS} per round; 0 missing$"
)
OVER_REQUEST_LINE = re.compile(
    r"^  N=(\d+): fray over request\+bare: p50 \d+\.\d\dx, p99 \d+\.\d\dx, cpu -?\d+\.\d\dx "
    r"\(informative\)$"
)
FIRST_LOAD_LINE = re.compile(
    r"^first load: player \d+\.\d KB, referee \d+\.\d KB \(compressed, all requests\)$"
)


def _bench(*arguments: str, env: dict[str, str] | None = None) -> list[str]:
    completed = subprocess.run(
        [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "bench_live", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return completed.stdout.splitlines()


def _fanout(
    n: int,
    fray: list[float],
    bare: list[float],
    cpu: tuple[float, float],
    request: tuple[list[float], float] = ([], 0.0),
) -> Fanout:
    """Fray's and the bare rounds; ``request`` is request+bare's latencies and CPU per round."""
    rounds = len(fray)
    return Fanout(
        n=n,
        seats=n - 1,
        fray=fray,
        bare=bare,
        request=request[0],
        request_posts=[0.005] * len(request[0]),
        request_cpu=request[1] * len(request[0]),
        posts=[0.01] * rounds,
        fray_cpu=cpu[0] * rounds,
        bare_cpu=cpu[1] * rounds,
        connects=Connects(sockets=n, last=0.5, times=[0.5] * n),
    )


def test_the_fanout_line_is_exactly_the_issues() -> None:
    fanout = _fanout(50, [0.0123, 0.0123, 0.0201], [0.0102, 0.0102, 0.0150], (0.0031, 0.0022))
    assert fanout_line(fanout) == (
        "fanout N=50: fray p50 12.3 ms p99 20.1 ms; bare p50 10.2 ms p99 15.0 ms; "
        "ratio p50 1.21 p99 1.34; cpu/change fray 3.1 ms bare 2.2 ms"
    )


def test_fray_over_request_and_bare_is_an_informative_line_per_n() -> None:
    fanout = _fanout(
        10, [0.019, 0.019, 0.028], [0.01] * 3, (0.0042, 0.001), ([0.01, 0.01, 0.02], 0.002)
    )
    assert fray_over_request(fanout) == (
        "  N=10: fray over request+bare: p50 1.90x, p99 1.40x, cpu 2.10x (informative)"
    )


def test_the_summary_ends_with_one_fanout_line_per_n_and_shows_the_targets() -> None:
    request = ([0.006, 0.006, 0.01], 0.0025)
    figures = Figures(
        layer="embedded",
        workers=1,
        fanouts=[
            _fanout(50, [0.012, 0.012, 0.02], [0.01, 0.01, 0.015], (0.003, 0.002), request),
            _fanout(200, [0.05, 0.05, 0.09], [0.01, 0.01, 0.015], (0.01, 0.002)),
        ],
        first_load={"referee": [("/e/x/", 30_000), ("/qr.svg", 1000)], "player": [("/e/x/", 20)]},
        tables=TablesRun(
            tables=20, players=6, steps=[Step(offered=100, achieved=99, latencies=[0.05])]
        ),
    )
    lines: list[str] = []
    write_targets(lines.append, figures)
    write_summary(lines.append, figures)
    assert "  N=50: fray p50 1.20x bare (<= 1.5x) met" in lines
    assert "  N=50: cpu/change 1.50x bare (<= 3x) met" in lines
    assert "  N=200: fray p99 6.00x bare (<= 2x) NOT met" in lines
    over = "  N=50: fray over request+bare: p50 2.00x, p99 2.00x, cpu 1.20x (informative)"
    assert lines.index(over) == lines.index("  N=50: fray p99 1.33x bare (<= 2x) met") + 1
    assert not any("N=200: fray over request+bare" in line for line in lines)  # none measured
    assert any(line.startswith("  N=200: 200 simultaneous connects") for line in lines)
    assert (
        "  20 tables x 6 players: 99.0 actions/s held within 100 ms p99 (>= 100) NOT met" in lines
    )
    assert "  first load, referee: 31.0 KB (<= 60.0 KB) met" in lines
    assert "first load: player 0.0 KB, referee 31.0 KB (compressed, all requests)" in lines
    assert [FANOUT_LINE.match(line).group(1) for line in lines[-2:]] == ["50", "200"]


def test_the_figures_survive_the_trip_from_the_layers_process() -> None:
    figures = Figures(
        layer="scale-out",
        workers=2,
        fanouts=[
            _fanout(10, [0.02], [0.01], (0.03, 0.001), ([0.012], 0.004)),
            _fanout(50, [0.03], [0.02], (0.05, 0.002), ([0.022], 0.006)),
        ],
        first_load={"player": [("/e/x/", 100)]},
        tables=TablesRun(tables=2, players=1, steps=[Step(offered=2, achieved=2)]),
    )
    again = Figures.from_json(figures.to_json())
    assert again == figures
    lines: list[str] = []
    write_comparison(lines.append, figures, again)
    # The targets name 50 and 200 sockets; 10 is shown beside them.
    assert "  N=50 fray p50: 30.0 ms against 30.0 ms, 1.00x met" in lines
    assert "  N=10 fray p50: 20.0 ms against 20.0 ms, 1.00x (informative)" in lines
    slower = dataclasses.replace(
        again, fanouts=[again.fanouts[0], _fanout(50, [0.06], [0.02], (0.05, 0.002))]
    )
    lines = []
    write_comparison(lines.append, figures, slower)
    assert "  N=50 fray p50: 60.0 ms against 30.0 ms, 2.00x NOT met" in lines


def test_it_reads_the_sequence_number_of_a_message_only_from_live_seq() -> None:
    delta = '<div id="live-seq" data-seq="12" data-from="11" hidden hx-swap-oob="true"></div>'
    assert snapshot_seq('<li id="entry-9" data-seq="9"></li>' + delta) == 12
    assert snapshot_seq('<li id="entry-9" data-seq="9"></li>') is None


def test_the_percentile_is_nearest_rank() -> None:
    values = list(range(1, 101))
    assert percentile(values, 0.99) == 99
    assert percentile(values, 0.5) == 50
    assert percentile([7.0], 0.99) == 7.0


# --- end to end: the command against real servers, with tiny numbers ---------------------


def test_the_fanout_run_prints_the_issues_lines_for_every_n() -> None:
    lines = _bench("--real-server", "--players", "2,3", "--rounds", "2", "--warmup", "1")
    output = "\n".join(lines)
    for start in (
        "== Fray live benchmark: embedded (SQLite, in-memory channel layer, one server process)",
        "machine: ",
        "servers: 1 x manage.py serve (Daphne); database: SQLite",
        "N=2: 1 referee + 1 player sockets on 1 seats, 1 worker",
        "  2 sockets opened at once, each behind (?seq=0): the last had its first state after ",
        "  fray, from the POST until every socket had the change: p50 ",
        "  bare, group_send of ",
        "  request+bare, a plain POST that group_sends the same bytes, until every socket had it",
        "  server CPU per change: fray ",
        "targets, embedded (informative: this machine, this run):",
        "first load, player, bytes received per request: page ",
    ):
        assert any(line.startswith(start) for line in lines), f"no line {start!r} in\n{output}"
    assert any(FIRST_LOAD_LINE.match(line) for line in lines), output
    assert len([line for line in lines if REQUEST_LINE.match(line)]) == 2, output
    bare = [i for i, line in enumerate(lines) if line.startswith("  bare, group_send of ")]
    assert [i + 1 for i in bare] == [i for i, line in enumerate(lines) if REQUEST_LINE.match(line)]
    over = [OVER_REQUEST_LINE.match(line) for line in lines]
    assert [match.group(1) for match in over if match] == ["2", "3"], output
    assert [FANOUT_LINE.match(line).group(1) for line in lines[-2:]] == ["2", "3"], output


def test_the_tables_run_reports_the_rate_held() -> None:
    lines = _bench("--tables", "2", "--players", "1", "--rates", "2", "--step-seconds", "0.5")
    output = "\n".join(lines)
    assert any(line.startswith("2 tables x (1 referee + 1 players) = 4 sockets") for line in lines)
    assert any(line.startswith("  2 actions/s offered (1.00 per table): ") for line in lines)
    assert re.search(r"^tables 2 x 1 players \(4 sockets\): ", output, re.MULTILINE), output


@pytest.mark.skipif(
    not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
    reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL",
)
def test_the_scale_out_run_compares_two_workers_on_postgresql_and_redis_with_embedded() -> None:
    lines = _bench("--players", "2", "--rounds", "2", "--warmup", "1", "--scale-out")
    output = "\n".join(lines)
    assert any(
        line.startswith("servers: 2 x manage.py serve (Daphne); database: PostgreSQL")
        for line in lines
    ), output
    assert "targets, scale-out against embedded (no worse than 1.5x):" in lines
    assert len([line for line in lines if REQUEST_LINE.match(line)]) == 2, output  # both layers
    assert [FANOUT_LINE.match(line).group(1) for line in lines if FANOUT_LINE.match(line)] == [
        "2",
        "2",
    ]
