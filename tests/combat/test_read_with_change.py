"""On PostgreSQL a change reads the table it leaves in its own last statement, and the worker
renders from that read, as does any worker it announces the read to (``combat.live.state``: the
table as a change leaves it). What they render from is what a load would read."""

from __future__ import annotations

import random

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from combat import table as toolkit
from combat.access import Viewer
from combat.db.prepared import reading
from combat.live import hub
from combat.live import state as live
from combat.live.state import Audience, State, decoded, encoded, read_follows
from combat.models import Combatant, Condition, Encounter

from .conftest import character, monster
from .test_live_state import _change_at_random, _rows, _same_logs

pytestmark = pytest.mark.django_db(transaction=True)


def _postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the database across the network only")


@pytest.fixture
def taken(monkeypatch) -> list:
    """What each change's announcement found kept for it (None: nothing)."""
    found: list = []
    original = live._taken

    def recording(seq: int):
        found.append(original(seq))
        return found[-1]

    monkeypatch.setattr(live, "_taken", recording)
    return found


def _same_states(state: State, loaded: State) -> None:
    assert state.seq == loaded.seq
    assert _rows(state) == _rows(loaded)
    _same_logs(state, loaded)
    assert state.shown == loaded.shown and state.shown_to_players == loaded.shown_to_players
    assert {k: [c.pk for c in v] for k, v in state.conditions.items()} == {
        k: [c.pk for c in v] for k, v in loaded.conditions.items()
    }


def test_a_change_reads_the_table_as_it_leaves_it_in_its_last_statement(taken):
    """Blows, rolls open and secret, and undos: after each, the read kept with the change,
    as the worker has it and as another worker decodes it from the announcement, makes the
    state a load would, without asking the database anything."""
    _postgresql()
    encounter = Encounter.objects.create(name="Crypt")
    hero = character(encounter, "Aldric")
    goblin = monster(encounter, "Goblin", hp_max=500, hp=500)
    Condition.objects.create(combatant=goblin, kind="blinded", rounds_left=2)
    dice = random.Random(3)
    previous = State.load(encounter.pk)
    for step in range(12):
        before = len(taken)
        _change_at_random(encounter, [hero, goblin], dice, step, undo=0.2, roll=0.3)
        if len(taken) == before:
            continue  # nothing to undo: nothing changed
        assert taken[-1] is not None, "an action of one statement after its reads keeps them"
        since, read = taken[-1]
        assert since == previous.seq and read_follows((since, read), previous, encounter.pk)
        assert decoded(encounter.pk, encoded(since, read)) == (since, read)
        with CaptureQueriesContext(connection) as asked, reading(read):
            state = State.load(encounter.pk, previous=previous)
        assert [q["sql"][:60] for q in asked] == []
        _same_states(state, State.load(encounter.pk, previous=previous))
        previous = state


def test_a_statement_after_the_read_drops_it(taken):
    """The action's transaction goes on after its last statement (here: a savepoint's
    release and another write): the read may not be the table as it commits, so it is not
    kept."""
    _postgresql()
    encounter = Encounter.objects.create(name="Crypt")
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    with transaction.atomic():
        toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=3, once="a")
        Combatant.objects.filter(pk=goblin.pk).update(name="Goblin chief")
    assert taken == [None]
    toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=3, once="b")
    assert taken[-1] is not None
    assert live._KEPT.value is None and not connection.execute_wrappers


def test_keeping_a_read_leaves_djangos_execute_wrappers_to_whoever_put_them_there():
    """A read kept within someone's ``connection.execute_wrapper`` block (which pops the top
    of the stack as it ends) leaves theirs to it, and goes when its change is announced."""

    def theirs(execute, sql, params, many, context):
        return execute(sql, params, many, context)

    with connection.execute_wrapper(theirs):
        live.keep_read(connection, 7, 6, {})
    assert len(connection.execute_wrappers) == 1 and connection.execute_wrappers[0] is not theirs
    assert live._taken(7) == (6, {})
    assert connection.execute_wrappers == []


def test_a_worker_renders_from_an_announced_read_only_when_it_follows_its_state(taken):
    """A hub at the state the read follows renders the change without a query; one at
    another state loads from the database; both show the same."""
    _postgresql()
    encounter = Encounter.objects.create(name="Crypt")
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    audiences = {Audience(referee=True, seat=None, language="en")}

    def render(table: hub.TableHub, at_least: int, read: str | None = None):
        built = hub._build(table, audiences, at_least, read)
        table._install(built)
        return built

    behind = hub.TableHub(encounter.pk)
    render(behind, 0)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=3, once="a")
    in_step = hub.TableHub(encounter.pk)
    seq = render(in_step, 0)[0].seq
    toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=4, once="b")
    text = encoded(*taken[-1])
    with CaptureQueriesContext(connection) as asked:
        state, views = render(in_step, seq + 1, text)
    assert asked.captured_queries == [] and state.seq == seq + 1
    with CaptureQueriesContext(connection) as asked:
        other, other_views = render(behind, seq + 1, text)
    assert asked.captured_queries and other.seq == seq + 1
    (audience,) = audiences
    assert views[audience].message(None) == other_views[audience].message(None)


def _two_hubs_and_a_read(taken) -> tuple[hub.TableHub, hub.TableHub, int, str]:
    """A hub at the state the last change's read follows, one a change behind, the number
    the change reached and its read as announced."""
    encounter = Encounter.objects.create(name="Crypt")
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    audiences = {Audience(referee=True, seat=None, language="en")}
    behind, in_step = hub.TableHub(encounter.pk), hub.TableHub(encounter.pk)
    behind._install(hub._build(behind, audiences, 0))
    viewer = Viewer(encounter, is_referee=True, seat=None)
    toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=3, once="a")
    in_step._install(hub._build(in_step, audiences, 0))
    toolkit.change_hit_points(viewer, actor=goblin, action="damage", amount=4, once="b")
    return in_step, behind, in_step.state.seq + 1, encoded(*taken[-1])


def _rendered_on_threads(monkeypatch) -> list:
    threads: list = []
    original = hub.render_in_thread

    def counted(func):
        threads.append(func)
        return original(func)

    monkeypatch.setattr(hub, "render_in_thread", counted)
    return threads


def _announced(table: hub.TableHub, seq: int, text: str) -> int:
    """``table`` hears change ``seq`` with its read and renders (as its pump does); the
    number its views are at then."""
    import asyncio

    async def main() -> int:
        table.loop = asyncio.get_running_loop()
        table.changed(seq, text)
        await table._render()
        return table.state.seq

    return asyncio.run(main())


def test_a_worker_renders_an_announced_read_it_follows_on_its_event_loop(taken, monkeypatch):
    """Where the announcement lands, with no turn of the render thread; a read the hub's
    state does not follow goes to the render thread, which loads. Both show the same."""
    _postgresql()
    in_step, behind, seq, text = _two_hubs_and_a_read(taken)
    threads = _rendered_on_threads(monkeypatch)
    assert _announced(in_step, seq, text) == seq and threads == []
    assert _announced(behind, seq, text) == seq and len(threads) == 1
    (audience,) = in_step.views
    assert in_step.views[audience].message(None) == behind.views[audience].message(None)


def test_a_render_on_the_event_loop_that_would_ask_the_database_goes_to_the_render_thread(
    taken, monkeypatch
):
    """Django refuses a query on the loop: the render is made again on the render thread."""
    import threading

    from django.core.exceptions import SynchronousOnlyOperation

    _postgresql()
    in_step, _behind, seq, text = _two_hubs_and_a_read(taken)
    threads = _rendered_on_threads(monkeypatch)
    original = hub._build
    loop_thread = threading.current_thread()

    def asks_the_database(*args):
        if threading.current_thread() is loop_thread:
            raise SynchronousOnlyOperation("a query on the loop")
        return original(*args)

    monkeypatch.setattr(hub, "_build", asks_the_database)
    assert _announced(in_step, seq, text) == seq and len(threads) == 1
    assert not hub.RENDER_LOCK._is_owned()


def test_a_read_is_announced_as_plain_values(monkeypatch):
    """Dates and decimals are marked; anything else is refused, and the change is
    announced without its read; a text that is not such a read is no read."""
    import datetime
    import decimal

    key = ("query", (1,))
    monkeypatch.setattr(State, "ahead", staticmethod(lambda encounter_id, since: [key]))
    read = {key: [(1, decimal.Decimal("5.50"), datetime.datetime.now(datetime.UTC), None)]}
    assert decoded(1, encoded(7, read)) == (7, read)
    assert decoded(1, "not json") is None and decoded(1, "[7, []]") is None
    assert decoded(1, '["7", [[]]]') is None
    assert encoded(7, {key: [(object(),)]}) is None


def test_a_change_is_announced_before_the_thread_that_made_it_renders_it(monkeypatch):
    """The announcement leaves the hub's event loop before the request's thread goes on to
    render: both need the interpreter's lock, and a render with no database wait to lend it
    kept other workers waiting for the announcement. The thread waits for it to leave, not
    for the channel layer's answer."""
    import asyncio
    import threading

    monkeypatch.setattr(hub, "ANNOUNCE_WAIT_SECONDS", 60.0)  # however slow this machine is
    sent: list[str] = []

    class Layer:
        async def group_send(self, group: str, message: dict) -> None:
            sent.append(group)  # written, as a publish writes before it waits
            await asyncio.sleep(0.5)  # Redis's answer, on its way back
            sent.append("answered")

    async def main() -> list[str]:
        table = hub.TableHub(1, loop=asyncio.get_running_loop())
        seen: list[str] = []

        def request() -> None:
            assert table.announce(Layer(), "encounter-1", {"type": "encounter.changed"})
            seen.extend(sent)  # what had left when announce returned

        thread = threading.Thread(target=request)
        thread.start()
        while thread.is_alive():
            await asyncio.sleep(0.001)
        return seen

    assert asyncio.run(main()) == ["encounter-1"]
