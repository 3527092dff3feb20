"""The page-variants window (Variants > Page variants…): pick a target by clicking the page, generate
variants with progress, verify them with A / R, and read a finished browse run's results: heatmap, ranked
table, click map and a trial replayed with the Right key. The browse run goes through the real engine
against the local fake OpenAI server; every page is rendered by a real browser, offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.store.project import Project
from desktop_app.ui.vaf.window import PAGE, RESULTS, TABLE, VERIFY
from desktop_app.vaf import views
from desktop_app.vaf.settings import Setting
from desktop_app.vaf.study import generate_study

from gui_helpers import click, key
from openai_server import FakeOpenAI, Response, user_text
from test_gui_editing import open_window

CARDS = ("Alpha laptop 14", "Beta laptop 15", "Gamma laptop 13", "Delta laptop 16", "Epsilon laptop 17",
         "Zeta laptop 12")
FIRST_CARD = "body > main > div > div:nth-of-type(1)"  # what picking the first card gives
SETTINGS = (Setting("background", "#ff9800"), Setting("order", "last"))
CLICK = (700, 250)  # viewport pixels: the first card while the page is at the top


def write_page(folder: Path) -> Path:
    """A small shop page: a header, a sidebar and six sibling cards (taller than one viewport)."""
    folder.mkdir(parents=True, exist_ok=True)
    cards = "\n".join(f'<div class="card"><h2>{name}</h2><p>${299 + 100 * i} · ★ 4.{i}</p></div>'
                      for i, name in enumerate(CARDS))
    page = folder / "shop.html"
    page.write_text(f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font-family: sans-serif; margin: 0 }}
header {{ height: 80px; background: #234; color: white; padding: 0 20px }}
main {{ display: flex }} aside {{ width: 250px; background: #eee; min-height: 400px }} .list {{ flex: 1 }}
.card {{ border: 1px solid #ccc; margin: 10px; padding: 10px; height: 220px }}
</style></head><body><header><h1>Laptop shop</h1></header>
<main><aside>Filters</aside><div class="list">
{cards}
</div></main></body></html>""", encoding="utf-8")
    return page


def page_spec(page: Path, study: str = "shop"):
    return api.vaf_page(str(page), FIRST_CARD, study, target_name=CARDS[0], items=".card", category="laptop",
                        page_type="shop's search results", item_singular="laptop", item_plural="laptops")


def make_study(path: Path, renderer, page: Path, settings=SETTINGS, study: str = "shop", accept: bool = False):
    """A project holding the page's study (original + settings), its variants accepted when asked."""
    with Project.init(path) as project:
        report = generate_study(project, renderer, page_spec(page, study), list(settings))
        assert report.added and not report.failed, report.lines()
        if accept:
            for v in api.vaf_variants(project, study):
                if v.review_status == "pending":
                    api.verify_variant(project, v.episode_id, "accept")
    return path


def browsing_agent(body: dict, _n: int) -> Response:
    """Scroll down, scroll back up, then click the point where the first card sits on the original page;
    the judge always finds the target mentioned."""
    said = user_text(body)
    if "semantic_understanding_score" in said:
        return Response(text='{"semantic_understanding_score": 1, "reasoning": "it names Alpha laptop 14"}')
    turn = max(int(n) for n in re.findall(r"^Screen (\d+) \(", said, re.M))
    if turn == 1:
        return Response(text="Thought: On this screen I see these laptops: Alpha laptop 14. I scroll to see more.\n"
                             "Action: scroll(start_box='(640,600)', direction='down')")
    if turn == 2:
        return Response(text="Thought: On this screen I see these laptops: Delta, Epsilon. Back up.\n"
                             "Action: scroll(start_box='(640,600)', direction='up')")
    return Response(text=f"Thought: Alpha laptop 14 is the best one.\nAction: click(start_box='({CLICK[0]},{CLICK[1]})')")


def add_agents(server) -> None:
    for name, model, convention in (("browser", "m", "point-px"), ("judge", "j", "json-text")):
        assert main(["agents", "add", name, "--base-url", server.base_url, "--model", model, "--convention",
                     convention, "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0


def browse_run(path: Path, study: str = "shop", trials: int = 2) -> int:
    """A finished browse run (with a judge) on the study's accepted variants."""
    with FakeOpenAI(browsing_agent) as server, Project.open(path) as project:
        add_agents(server)
        run_id = api.create_run(project, "browser", where={"scenarios": (study,)}, protocol="browse", trials=trials,
                                judge="judge")
        api.execute_run(project, run_id)
    return run_id


def open_variants(qtbot, path):
    window = open_window(qtbot, path)
    window.variants_action.trigger()  # Variants > Page variants…
    vaf = window.vaf_window
    qtbot.waitExposed(vaf)
    vaf.activateWindow()  # the user works in it: its keys go to it
    qtbot.waitUntil(lambda: QApplication.activeWindow() is vaf, timeout=5_000)
    return window, vaf


def close(window) -> None:
    window.vaf_window.close()
    QApplication.processEvents()


@pytest.fixture
def page(tmp_path):
    return write_page(tmp_path / "site")


def test_clicking_the_page_picks_the_target_and_generating_adds_variants(qtbot, tmp_path, page):
    Project.init(tmp_path / "p").close()
    window, vaf = open_variants(qtbot, tmp_path / "p")
    tab = vaf.page
    assert tab.open_source(str(page))
    qtbot.waitUntil(lambda: tab.view.has_picture() and tab.shot is not None, timeout=15_000)
    assert tab.target.text() == "" and tab.study.text() == "shop"  # a file has no target yet
    click(tab.view, 700, 200)  # on the first card (page pixels)
    qtbot.waitUntil(lambda: tab.target.text() != "", timeout=10_000)
    assert tab.target.text() == FIRST_CARD
    assert tab.target_name.text().startswith(CARDS[0])  # prefilled with the card's text
    assert tab.items.text().endswith(".card")
    qtbot.waitUntil(lambda: tab.found.text().startswith("Target found"), timeout=10_000)
    assert "5 other items" in tab.found.text()
    assert len(tab.view.marks()) == 6  # the target outlined, the other cards dashed
    tab.target_name.setText(CARDS[0])
    tab.words["category"].setText("laptop")

    vaf.show_tab(TABLE)
    table = vaf.table
    assert table.table.rowCount() == 48 and "48 ticked" in table.count_label.text()
    table.set_ticked({s.name for s in SETTINGS})
    assert "2 ticked" in table.count_label.text()
    qtbot.mouseClick(table.generate_button, Qt.LeftButton)
    assert not table.generate_button.isEnabled() and table.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: "variants added" in table.report_text.toPlainText(), timeout=20_000)
    assert table.progress.value() == table.progress.maximum() == 3  # the original and two settings
    assert table.report_text.toPlainText().startswith("shop: 3 variants added")
    assert table.generate_button.isEnabled()
    with Project.open(tmp_path / "p") as project:
        found = {v.setting: v.review_status for v in api.vaf_variants(project, "shop")}
        spec = api.vaf_variants(project, "shop")[0].page
    assert found == {"original": "accepted", "background_ff9800": "pending", "order_last": "pending"}
    assert spec.target == FIRST_CARD and spec.target_name == CARDS[0] and spec.category == "laptop"
    assert vaf.verify.study.currentText() == "shop"  # the new study is the one to verify
    close(window)


def test_the_variant_table_refuses_bad_values_and_bad_files_without_crashing(qtbot, tmp_path, monkeypatch, page):
    Project.init(tmp_path / "p").close()
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text: warnings.append((title, text)))
    window, vaf = open_variants(qtbot, tmp_path / "p")
    table = vaf.table
    table.add_row()  # background with no value yet: marked, never generated
    row = table.table.rowCount() - 1
    assert table.table.item(row, 3).text().startswith("⚠")
    table.table.item(row, 2).setText("#00ff00")
    assert table.table.item(row, 3).text() == "background_00ff00"
    table.table.item(row, 2).setText("not a colour!")
    table.generate()
    assert warnings[-1][0] == "The variant table has a problem" and "row 49" in warnings[-1][1]
    bad = tmp_path / "bad.json"
    bad.write_text('[{"family": "size", "value": "3"}]')
    assert not table.load_from(str(bad)) and "unknown family 'size'" in warnings[-1][1]
    bad.write_text("{ not json")
    assert not table.load_from(str(bad)) and "cannot read the variant table" in warnings[-1][1]
    assert table.table.rowCount() == 49  # the table shown is unchanged
    table.remove_rows()  # nothing selected: nothing removed
    table.table.selectRow(row)
    table.remove_rows()
    table.set_ticked({"order_last", "order_middle"})
    saved = tmp_path / "two.json"
    assert table.save_to(str(saved))
    table.reset()
    assert table.load_from(str(saved)) and table.table.rowCount() == 2
    assert not vaf.page.open_source(str(tmp_path / "bad.json"))  # not a web page: said, not shown
    assert "not an HTML page" in warnings[-1][1]
    close(window)


def test_the_verify_keys_accept_and_reject_with_a_reason(qtbot, tmp_path, renderer, page):
    path = make_study(tmp_path / "p", renderer, page, SETTINGS + (Setting("fontFamily", "comic"),))
    window, vaf = open_variants(qtbot, path)
    vaf.show_tab(VERIFY)
    verify = vaf.verify
    assert verify.study.currentText() == "shop"
    assert verify.counts.text() == "3 pending · 0 accepted · 0 rejected"
    assert [verify.list.item(i).text()[3:] for i in range(verify.list.count())] == \
        ["background_ff9800", "order_last", "fontFamily_comic"]
    assert verify.original_view.has_picture() and verify.variant_view.has_picture()
    assert verify.setting.text() == "background_ff9800"
    styles = {verify.style_table.item(r, 0).text(): verify.style_table.item(r, 2).text()
              for r in range(verify.style_table.rowCount())}
    assert styles["background-color"] == "rgb(255, 152, 0)"
    assert verify.buttons["Y"].text() == "Accept (Y)" and verify.buttons["N"].text() == "Reject… (N)"

    key(vaf, "D")
    assert verify.setting.text() == "order_last"
    key(vaf, "A")  # previous, as in the main window: never a verdict
    assert verify.setting.text() == "background_ff9800" and "0 accepted" in verify.counts.text()
    key(vaf, "Y")  # background_ff9800 accepted; the next pending one takes its place
    assert verify.counts.text() == "2 pending · 1 accepted · 0 rejected"
    assert verify.setting.text() == "order_last"

    def answer_dialog():
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QDialog)
        dialog.reason.setCurrentIndex(1)
        dialog.detail.setText("the card sits under the footer")
        dialog.accept()

    QTimer.singleShot(0, answer_dialog)
    key(vaf, "N")
    assert verify.counts.text() == "1 pending · 1 accepted · 1 rejected"
    assert verify.setting.text() == "fontFamily_comic"
    with Project.open(path) as project:
        status = {v.setting: v for v in api.vaf_variants(project, "shop")}
        rejected = views.variant_detail(project, status["order_last"].episode_id)
    assert status["background_ff9800"].review_status == "accepted"
    assert rejected["status"] == "rejected"
    assert rejected["reason"] == "target hidden or cut off: the card sits under the footer"
    assert rejected["reviewer"] == "ann"
    vaf.show_tab(PAGE)
    key(vaf, "A")  # the queue's keys are off outside the Verify tab
    assert verify.counts.text() == "1 pending · 1 accepted · 1 rejected"
    close(window)


def test_results_show_the_heatmap_the_ranking_and_replay_a_trial(qtbot, tmp_path, renderer, page, monkeypatch):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = make_study(tmp_path / "p", renderer, page, accept=True)
    run_id = browse_run(path)
    window, vaf = open_variants(qtbot, path)
    results = vaf.results
    with qtbot.waitSignal(results.loaded, timeout=10_000):
        vaf.show_tab(RESULTS)  # the figures are computed off the UI thread
    assert results.checked_runs() == [run_id]
    heat = results.heatmap
    assert heat.columns == [f"browser #{run_id}"]
    cells = {name: heat.text_of(i, 0) for i, name in enumerate(heat.names)}
    assert cells == {"background_ff9800": "+0", "order_last": "-100"}  # the moved card is never clicked
    ranked = [[results.ranked.item(r, c).text() for c in range(4)] for r in range(results.ranked.rowCount())]
    assert ranked == [["1", "background_ff9800", "1.000", "1.000"], ["2", "order_last", "0.000", "1.000"],
                      ["original", "original", "1.000", "1.000"]]
    per_variant = {results.per_variant.item(r, 1).text(): results.per_variant.item(r, 3).text()
                   for r in range(results.per_variant.rowCount())}
    assert per_variant["order_last"].startswith("0.0 % [0.0, ") and per_variant["original"].startswith("100.0 %")

    results.tmr_button.click()  # the judge found the target mentioned every time: no change
    assert [heat.text_of(i, 0) for i in range(2)] == ["+0", "+0"]
    results.tmr_paper_button.click()  # nor under the paper's denominator (no reply was unreadable)
    assert [heat.text_of(i, 0) for i in range(2)] == ["+0", "+0"]
    assert heat.title.startswith("Δ TMR (all trials, paper)")
    header = [results.ranked.horizontalHeaderItem(c).text() for c in range(results.ranked.columnCount())]
    assert header[3:5] == ["TMR (readable replies)", "TMR (all trials, paper)"]
    assert results.ranked.item(0, 4).text() == "1.000"
    assert "TMR (all trials, paper) 100.0 %" in results.tmr_note.text()
    assert "0 judge replies unreadable" in results.tmr_note.text()
    results.tcr_button.click()

    row = heat.names.index("order_last")
    point = heat.cell_rect(row, 0).center().toPoint()
    QTest.mouseClick(heat, Qt.LeftButton, Qt.NoModifier, point)
    assert results.current_variant().setting == "order_last"
    assert len(results.click_map.view.marks()) == 1 + 2  # the target's outline and two clicks
    counts = [results.click_map.counts.item(r, 0).text() for r in range(results.click_map.counts.rowCount())]
    assert counts == [f"{CARDS[1]} $399 · ★ 4.1"]  # both clicks on Beta, now the first card

    results.details.setCurrentIndex(2)  # Trials
    assert results.trial_list.count() == 2
    assert results.trial_list.item(0).text() == "0: other item · 3 steps · mentioned"
    replay = results.replay
    assert replay.step_label.text().startswith("Step 1 of 3 · at 0 px · scroll down")
    assert replay.view.has_picture() and replay.view.picture_size() == (1280, 1200)
    assert replay.thought.toPlainText().startswith("On this screen I see these laptops")
    replay.view.setFocus()
    key(replay.view, "Right")
    assert replay.step_label.text().startswith("Step 2 of 3 · at ") and "scroll up" in replay.step_label.text()
    key(replay.view, "Right")
    assert replay.step_label.text() == f"Step 3 of 3 · at 0 px · click at ({CLICK[0]}, {CLICK[1]})"
    assert "click(start_box=" in replay.raw.toPlainText()
    dots = [m for m in replay.view.marks() if m.type() == 4]  # QGraphicsEllipseItem: the click
    assert len(dots) == 1 and dots[0].pos().toTuple() == CLICK
    assert replay.judge.text().startswith("target mentioned")
    assert not replay.next_button.isEnabled()
    with qtbot.waitSignal(results.loaded, timeout=10_000):
        results.refresh()  # read again (a run still going): the trial and step shown stay
    assert replay.step_label.text().startswith("Step 3 of 3") and results.current_variant().setting == "order_last"
    results.trial_list.setFocus()  # the list of trials: Up / Down choose a trial, Left / Right step
    key(results.trial_list, "Left")
    assert replay.step_label.text().startswith("Step 2 of 3")

    out = tmp_path / "results.csv"
    assert results.export_to(str(out))
    lines = out.read_text().splitlines()
    assert lines[0].startswith("run,agent,study,variant") and len(lines) == 4
    close(window)


def test_the_new_run_dialog_passes_the_browse_options(qtbot, project):
    from desktop_app.agents.profiles import AgentProfile
    from desktop_app.ui.eval.run_dialog import RunDialog

    profiles = {"browser": AgentProfile("browser", base_url="http://localhost:1/v1", model="m", convention="point-px"),
                "judge": AgentProfile("judge", base_url="http://localhost:1/v1", model="j")}
    dialog = RunDialog(project, profiles=profiles)
    qtbot.addWidget(dialog)
    dialog.set_agents(["browser"])
    box = dialog.browse_options
    dialog.set_protocol("screen")
    assert not box.isEnabled()
    dialog.set_protocol("browse")
    assert box.isEnabled()
    assert [box.judge.itemText(i) for i in range(box.judge.count())] == ["none (no TMR)", "browser", "judge"]
    assert dialog.runs()[0].options == {"trials": 50, "max_steps": 10, "history": 2, "temperature": 1.0,
                                        "top_p": 0.8, "judge": ""}
    box.trials.setValue(3)
    box.max_steps.setValue(6)
    box.history.setValue(1)
    box.temperature.setValue(0.7)
    box.top_p.setValue(0.9)
    box.set_judge("judge")
    request = dialog.runs()[0]
    assert request.protocol == "browse"
    assert request.options == {"trials": 3, "max_steps": 6, "history": 1, "temperature": 0.7, "top_p": 0.9,
                               "judge": "judge"}
