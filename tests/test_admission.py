"""plates.admission: limits counted per client address (not per browser session), byte rates per address and
in total, session slots with a time to live, and a memory budget checked before new work."""

from __future__ import annotations

import pytest

from plates.admission import MemoryBudget, RateLimit, Refused, Slots, client_address


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_rate_limit_counts_per_address_in_a_sliding_window_and_records_no_refused_event():
    clock = Clock()
    starts = RateLimit("quiz starts", 3, 600.0, clock=clock)
    for _ in range(3):
        starts.take("a")  # three fresh browser sessions from one address: one allowance
    with pytest.raises(Refused, match=r"too many quiz starts from your address: 3 in the last 10 min; allowed: 3 per "
                                      r"10 min\. Please try again in 10 min"):
        starts.take("a")
    starts.take("b")
    clock.now = 599.0
    with pytest.raises(Refused):
        starts.take("a")
    clock.now = 600.0  # the first three left the window; the refused ones were never counted
    for _ in range(3):
        starts.take("a")


def test_rate_limit_remembers_a_bounded_number_of_addresses():
    limit = RateLimit("uploads", 1, 60.0, max_clients=100, clock=Clock())
    for i in range(1000):
        limit.take(f"10.0.{i // 256}.{i % 256}")
    assert len(limit._events) == 100
    with pytest.raises(ValueError, match="per_client=0"):
        RateLimit("x", 0, 1.0)


def test_a_byte_rate_caps_uploads_per_address_and_in_total():
    clock = Clock()
    uploads = RateLimit("uploads", 10_000_000, 1800.0, total=25_000_000, unit="bytes", clock=clock)
    uploads.take("a", 8_000_000)
    with pytest.raises(Refused, match=r"too many uploads from your address: 8\.0 MB in the last 30 min; allowed: "
                                      r"10\.0 MB per 30 min"):
        uploads.take("a", 3_000_000)
    uploads.take("b", 9_000_000)
    with pytest.raises(Refused, match=r"too many uploads on this server: 17\.0 MB in the last 30 min from every "
                                      r"visitor; allowed: 25\.0 MB"):
        uploads.take("c", 9_000_000)
    clock.now = 1800.0  # what was uploaded half an hour ago has left the window (and the disk)
    uploads.take("c", 9_000_000)
    uploads.take("a", 10_000_000)


def test_slots_cap_live_sessions_expire_idle_ones_and_call_back():
    clock, expired = Clock(), []
    slots = Slots("quizzes", 2, 1800.0, on_expire=expired.append, clock=clock)
    slots.admit("s1")
    slots.admit("s2")
    slots.admit("s1")  # already in: no second slot
    with pytest.raises(Refused, match="running 2 quizzes now, its most at once; please try again in 30 min"):
        slots.admit("s3")
    clock.now = 1000.0
    assert slots.touch("s2")
    clock.now = 1800.0  # s1 idle for 30 min: expired, its slot free
    slots.admit("s3")
    assert expired == ["s1"] and not slots.touch("s1") and len(slots) == 2
    slots.release("s2")
    assert len(slots) == 1


def test_memory_budget_refuses_new_work_when_over_and_takes_it_again_when_back_under():
    used = [900_000_000]
    budget = MemoryBudget(1_500_000_000, rss=lambda: used[0])
    budget.check("a new quiz")
    used[0] = 1_600_000_000
    with pytest.raises(Refused, match=r"busy \(1600 MB of its 1500 MB memory budget in use\), so it cannot take "
                                      r"a new quiz now"):
        budget.check("a new quiz")
    used[0] = 1_400_000_000
    budget.check("a new quiz")
    assert MemoryBudget(1 << 40).check("anything") is None  # the real RSS of this process is far below 1 TB


def test_client_address_trusts_only_the_proxys_own_entry():
    spoofed = {"X-Forwarded-For": "127.0.0.1, 198.51.100.4"}
    assert client_address("10.0.0.2", spoofed, behind_proxy=True) == "198.51.100.4"
    assert client_address("10.0.0.2", spoofed) == "10.0.0.2"
    assert client_address(None, {}) == "unknown"


def test_the_memory_budget_comes_from_the_environment_or_the_default():
    from plates.admission import MEMORY_BUDGET_BYTES, memory_budget

    assert memory_budget({}).limit_bytes == MEMORY_BUDGET_BYTES == 1_500_000_000
    assert memory_budget({"PLATES_MEMORY_BUDGET_MB": "4000"}).limit_bytes == 4_000_000_000
    with pytest.raises(ValueError, match="PLATES_MEMORY_BUDGET_MB='1.5GB' is not allowed"):
        memory_budget({"PLATES_MEMORY_BUDGET_MB": "1.5GB"})


def test_each_address_has_its_own_daily_share_of_the_quiz_answer_store():
    from plates.admission import QUIZ_STORE_SHARE_BYTES, QUIZ_STORE_WINDOW_S, Admission

    clock = Clock()
    store = Admission(memory=MemoryBudget(1 << 40)).quiz_store
    assert (store.per_client, store.window_s, store.total) == (QUIZ_STORE_SHARE_BYTES, QUIZ_STORE_WINDOW_S, None)
    share = RateLimit(store.what, store.per_client, store.window_s, unit=store.unit, clock=clock)
    share.take("a", 9_990_000)
    with pytest.raises(Refused, match=r"too many stored quiz answers from your address: 10\.0 MB in the last 24 h; "
                                      r"allowed: 10\.0 MB per 24 h\. Please try again in 24 h\."):
        share.take("a", 25_000)
    share.take("b", 25_000)  # another address still stores
    clock.now = 20 * 3600.0
    with pytest.raises(Refused, match=r"Please try again in 4 h\."):
        share.take("a", 25_000)
    clock.now = QUIZ_STORE_WINDOW_S
    share.take("a", 25_000)
