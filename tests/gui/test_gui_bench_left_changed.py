"""Issue 27 (brief item 6): a benchmark that could not put a change back on a host (the CLI's exit 4, "HOST left
changed: …" with the command to undo it by hand) showed in the wizard as an ordinary finish. The sentence is the real
one: an undo-journal row written to a real journal in a scratch folder, turned into words by the benchmark's own
``RemoteBench._left_changed`` (what it says after a restore that failed or hung)."""
from __future__ import annotations

from guitools import to_page
from nicadvisor.bench.journal import Journal
from nicadvisor.bench.remote import RemoteBench
from nicadvisor.bench.results import BenchReport
from nicadvisor.gui.wizard import PageId


def test_a_host_left_changed_is_an_error_with_the_command_to_run(make_wizard, qtbot, tmp_path, screenshot):
    folder = str(tmp_path / "nicadv-bench-5f0c2a9e41d7b3c8")  # the run's folder on the host (named as runs name it)
    journal = Journal(tmp_path / "journal")
    journal.record("folder", host="ssh://root@127.0.0.1:2222", path=folder)
    bench_run = RemoteBench.__new__(RemoteBench)  # only its wording of the journal is used: no host is contacted
    bench_run.conns = {}
    left = bench_run._left_changed(journal)
    assert len(left) == 1 and left[0].startswith("HOST left changed: ")
    wizard = make_wizard(store=None)
    bench = to_page(wizard, qtbot, PageId.BENCHMARK)
    bench.task_finished(BenchReport(results=[], problems=["TCP_RR: netperf exited 1"], left_changed=left))
    text = bench.problems.text()
    assert "A change on a host could not be put back" in text and "color:#b00020" in text
    assert f"ssh://root@127.0.0.1:2222: folder {folder}: run <code>rm -rf {folder}</code>" in text, text
    assert "<b>Problems:</b> TCP_RR: netperf exited 1" in text
    assert bench.progress.failed and "left changed" in bench.progress.status.text()
    for size in ((1200, 800), (1920, 1080)):
        wizard.resize(*size)
        screenshot(wizard, f"benchmark-left-changed-{size[0]}")


def test_a_cancelled_run_that_left_a_change_says_so(make_wizard, qtbot, tmp_path):
    """The CLI's cancel path says "cancelled; … not every change could be put back" and exits 4: the page too."""
    from nicadvisor.services.between import PreparedBetween

    folder = str(tmp_path / "nicadv-bench-0a1b2c3d4e5f6a7b")
    journal = Journal(tmp_path / "journal")
    journal.record("folder", host="ssh://root@127.0.0.1:2222", path=folder)
    bench_run = RemoteBench.__new__(RemoteBench)
    bench_run.conns = {}
    bench_run.left_changed = bench_run._left_changed(journal)  # as RemoteBench.run sets it, also when cancelled
    prepared = PreparedBetween.__new__(PreparedBetween)
    object.__setattr__(prepared, "bench", bench_run)
    wizard = make_wizard(store=None)
    bench = wizard.pages[PageId.BENCHMARK]
    bench._prepared = prepared  # the run between hosts that was under way
    bench.task_cancelled()
    assert bench.progress.failed and "left changed" in bench.progress.status.text()
    assert f"run <code>rm -rf {folder}</code>" in bench.problems.text()
    bench.task_cancelled()  # a later end does not say it again
    assert "left changed" not in bench.progress.status.text()
