"""Provides the delegation cards the Raw Log shows under a ``task`` call (built from cleaned text)."""

from __future__ import annotations

from rich.text import Text

from ..model.usage import SessionUsage
from ..views.delegation import Delegation
from ..views.usage_text import compact, seconds
from .render import style_of
from .safe import one_line

BAR = "  ┃ "


def card(item: Delegation, usage: SessionUsage | None) -> list[Text]:
    """The card's lines: who was asked what, how it ended, its subtree cost and time, and ``o``."""
    lines = []
    head = Text(BAR, style=style_of("agent")).append("↳ delegated", style="bold " + style_of("agent"))
    if item.subagent:
        head.append(" to ").append(one_line(item.subagent, 60), style=style_of("agent"))
    if item.description:
        head.append(": ").append(one_line(item.description, 160))
    lines.append(head)
    if item.prompt:
        lines.append(Text(BAR, style=style_of("agent")).append("asked: " + one_line(item.prompt, 300), style="dim"))
    status = Text(BAR, style=style_of("agent"))
    failed = item.success is False or (usage is not None and usage.failed)
    if item.success is None:
        status.append("… no result yet", style="italic")
    elif failed:
        status.append("✗ failed", style=style_of("problem"))
    else:
        status.append("✓ succeeded", style=style_of("tool.result.ok"))
    if usage is not None:
        status.append(f" · subtree {compact(usage)} · {seconds(usage.subtree.wall_seconds)}")
        if usage.subtree.children:
            status.append(f" · {usage.subtree.children} nested")
    if item.child_id:
        status.append(" · ").append("o", style="bold").append(" opens it")
    lines.append(status)
    if item.returned:
        lines.append(
            Text(BAR, style=style_of("agent")).append("returned: " + one_line(item.returned, 300), style="dim")
        )
    return lines
