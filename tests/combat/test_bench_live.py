"""The live benchmark runs end to end with tiny numbers: every socket gets every change.

Its figures are read by people from ``manage.py bench_live``; nothing here depends on the
machine's speed.
"""

from __future__ import annotations

import pytest

from combat.management.commands.bench_live import percentile, run_in_process, snapshot_seq
from combat.models import Encounter


@pytest.mark.django_db(transaction=True)
def test_the_benchmark_reports_every_figure_and_every_socket_gets_every_change() -> None:
    lines: list[str] = []
    result = run_in_process(players=2, monsters=3, changes=3, samples=1, write=lines.append)

    assert result.sockets == 3  # the referee and two players
    assert result.changes == 3
    assert result.delivered == result.expected == 9
    assert result.missing == []
    assert len(result.latencies) == 3
    assert set(result.message_bytes) == {"referee", "player"}
    output = "\n".join(lines)
    for start in (
        "Fray live benchmark: in-process",
        "database: ",
        "channel layer: ",
        "table: 1 referee + 2 players = 3 sockets",
        "encounter page, referee: p50 ",
        "encounter page, player: p50 ",
        "one POST alone (no socket open): damage p50 ",
        "snapshot render, referee: p50 ",
        "snapshot render, player: p50 ",
        "bytes per snapshot, referee: mean ",
        "bytes per snapshot, player: mean ",
        "change on the first socket: p50 ",
        "change on every socket: p50 ",
        "delivered: 9/9 snapshots",
        "target (every change on every socket within 1000 ms): ",
        "peak RSS, benchmark process (in-process): ",
    ):
        assert any(line.startswith(start) for line in lines), f"no line {start!r} in\n{output}"
    assert not Encounter.objects.exists()  # it cleans up after itself


def test_it_reads_the_sequence_number_of_a_snapshot_only_from_live_seq() -> None:
    snapshot = (
        '<li id="entry-9" data-seq="9"></li>'
        '<div id="live-seq" data-seq="12" hidden hx-swap-oob="true"></div>'
    )
    assert snapshot_seq(snapshot) == 12
    assert snapshot_seq('<li id="entry-9" data-seq="9"></li>') is None


def test_the_percentile_is_nearest_rank() -> None:
    values = list(range(1, 51))
    assert percentile(values, 0.95) == 48
    assert percentile(values, 0.5) == 25
    assert percentile([7.0], 0.95) == 7.0
