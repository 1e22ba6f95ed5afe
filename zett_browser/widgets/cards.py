"""Provides the delegation cards the Raw Log shows under a ``task``/``task_start`` call (built from cleaned text).

A foreground ``task`` card says who was asked what, how it ended and what it returned; a
background task's card adds its task id and latest known status (a cancelled child is
not a finished one, nor a failure). When the child is not in the open store the card
says so (and where it is, when zett-agent's default store holds it) instead of offering
``o``. A completion notice gets a one-line card: whether a later ``task_output`` read the
report it announced.
"""

from __future__ import annotations

from rich.text import Text

from ..model.usage import SessionUsage
from ..views.delegation import Delegation
from ..views.task_blocks import elapsed_text, status_label
from ..views.tasks import TaskLife
from ..views.usage_text import compact, seconds
from .render import style_of
from .safe import one_line

BAR = "  ┃ "


def _bar() -> Text:
    return Text(BAR, style=style_of("agent"))


def elsewhere_lines(child_id: str, elsewhere: str | None) -> list[Text]:
    """The child is not in this store; where it is, when known, and the command that opens it."""
    line = _bar().append("child not in this store", style=style_of("problem"))
    if not elsewhere:
        return [line]
    line.append(f"; child is in {one_line(elsewhere, 200)} — open it with:")
    command = f"zett-browser {one_line(elsewhere, 200)} --session {one_line(child_id, 80)}"
    return [line, _bar().append(command, style="bold")]


def _status(item: Delegation, usage: SessionUsage | None) -> Text:
    status = _bar()
    if item.background and item.status is not None:
        status.append(status_label(item.status), style=style_of(f"task.{item.status}"))
        if item.elapsed is not None:
            status.append(f" · {elapsed_text(item.elapsed)}")
    elif item.success is None:
        status.append("… no result yet", style="italic")
    elif item.failed or (usage is not None and usage.failed and not item.background):
        status.append("✗ failed", style=style_of("problem"))
    else:
        status.append("✓ succeeded", style=style_of("tool.result.ok"))
    if usage is not None:
        status.append(f" · subtree {compact(usage)} · {seconds(usage.subtree.wall_seconds)}")
        if usage.subtree.children:
            status.append(f" · {usage.subtree.children} nested")
    if item.child_id and item.in_store is not False:
        status.append(" · ").append("o", style="bold").append(" opens it")
    return status


def card(item: Delegation, usage: SessionUsage | None, tag: str | None = None) -> list[Text]:
    """The card's lines: who was asked what, how it ended, its subtree cost and time, and ``o``;
    ``tag`` tells the child from its siblings asked the same (as the tree does)."""
    lines = []
    head = _bar()
    if item.background:
        head.append("⧉ background", style="bold " + style_of("agent"))
        if item.task_id:
            head.append(" ").append(one_line(item.task_id, 64), style="bold")
        if item.subagent:
            head.append(" · ").append(one_line(item.subagent, 60), style=style_of("agent"))
    else:
        head.append("↳ delegated", style="bold " + style_of("agent"))
        if item.subagent:
            head.append(" to ").append(one_line(item.subagent, 60), style=style_of("agent"))
    if item.description:
        head.append(": ").append(one_line(item.description, 160))
    if tag:
        head.append("  ").append(one_line(tag, 40), style="bold")
    lines.append(head)
    if item.prompt:
        lines.append(_bar().append("asked: " + one_line(item.prompt, 300), style="dim"))
    lines.append(_status(item, usage))
    if item.error and item.failed:
        lines.append(_bar().append("error: " + one_line(item.error, 300), style=style_of("error")))
    if item.child_id and item.in_store is False:
        lines.extend(elsewhere_lines(item.child_id, item.elsewhere))
    if item.returned:
        lines.append(_bar().append("returned: " + one_line(item.returned, 300), style="dim"))
    return lines


def notice_card(life: TaskLife, sequence: int, complete: bool = True) -> list[Text]:
    """Under a completion notice: whether the report it announced was read, and where.

    ``complete``: the events after the notice were read to the session's end (else an
    unread report is not claimed: it may be read further on).
    """
    line = _bar().append("⧉ ", style="bold " + style_of("agent")).append(one_line(life.task_id, 64), style="bold")
    announced = life.notices.get(sequence)
    if announced is None:
        return []
    line.append(" · ").append(status_label(announced), style=style_of(f"task.{announced}"))
    if life.started is not None:
        line.append(f" · started at #{life.started}")
    later = [read for read in life.reads if read > sequence]
    if life.unread(sequence) and complete:
        line.append(" · ").append("● unread", style="bold reverse " + style_of("task.running"))
        line.append(" — no later task_output read it")
    elif later:
        line.append(f" · report read by task_output at #{later[0]}")
    return [line]


def life_card(life: TaskLife) -> list[Text]:
    """Under a ``task_status``/``task_output``/``task_cancel`` result: the task's events and latest status."""
    if len(life.events) < 2:
        return []
    line = _bar().append("⧉ ", style="bold " + style_of("agent")).append(one_line(life.task_id, 64), style="bold")
    line.append(": " + life.history())
    if life.status is not None:
        line.append(" · now ").append(status_label(life.status), style=style_of(f"task.{life.status}"))
    return [line]
