"""Fails loudly when Textual renames or removes an internal the app relies on."""

from __future__ import annotations

import inspect

from textual.scroll_view import ScrollView
from textual.widgets import Tree

from zett_browser.widgets import textual_compat


def test_every_private_name_still_exists() -> None:
    missing = [f"{cls.__name__}.{name}" for cls, name in textual_compat.PRIVATE_NAMES if not hasattr(cls, name)]
    assert not missing, f"Textual changed: {missing}; update zett_browser/widgets/textual_compat.py"


def test_the_private_methods_keep_their_signatures() -> None:
    assert list(inspect.signature(Tree._toggle_node).parameters) == ["self", "node"]
    assert list(inspect.signature(ScrollView._scroll_update).parameters) == ["self", "virtual_size"]


def test_a_frame_is_taken_by_the_output_thread_before_the_loop_goes_on() -> None:
    """Textual's real output thread, writing to a pipe: once ``let_output_through`` returns,
    the queued frames are out of the queue (the thread had the GIL to take them)."""
    import os
    import threading
    from types import SimpleNamespace

    from textual.drivers._writer_thread import WriterThread

    read_end, write_end = os.pipe()
    out = os.fdopen(write_end, "w")
    writer = WriterThread(out)
    writer.start()
    drained = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 65536):
            drained.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        app: object = SimpleNamespace(_driver=SimpleNamespace(_writer_thread=writer))
        for frame in range(20):
            writer.write(f"frame {frame} " + "x" * 8000)
            textual_compat.let_output_through(app, budget=5.0)  # type: ignore[arg-type]
            assert writer._queue.qsize() == 0  # noqa: SLF001
    finally:
        writer.stop()
        out.close()
        reader.join(5)
        os.close(read_end)
    assert drained.count(b"frame ") == 20


def test_without_an_output_thread_nothing_waits() -> None:
    from types import SimpleNamespace

    for driver in (None, SimpleNamespace(), SimpleNamespace(_writer_thread=None)):
        textual_compat.let_output_through(SimpleNamespace(_driver=driver), budget=5.0)  # type: ignore[arg-type]
