"""RB101's wording: one moved member is named as one ("struct x: member timer moved", not "members timer
moved"; "why timer sits where it does now", not "sit where they do")."""

from __future__ import annotations

from reviewbot.rules import rb101_struct_reorder as rb101
from test_rb101_layout_map import BEFORE, HOT_MOVE, findings, make_patch

HOT = "The ring pointer is read with depth on every submission; keep them in the same cache line."


def test_one_member_is_named_as_one(tmp_path):
    """A reorder of one member, a CHECK: 'member tail', and the question 'why tail sits where it does'."""
    packing = BEFORE.replace("\tu32\t\t\ttail;\n", "").replace(
        "\tu32\t\t\tflags;\n", "\tu32\t\t\tflags;\n\tu32\t\t\ttail;\n"
    )
    mail = make_patch(tmp_path, BEFORE, packing, "reorder members of foo_queue", "Save 8 bytes.")
    patch, [f] = findings(mail, None)
    assert f.message.startswith("struct foo_queue: member tail reordered;")
    assert "saying why tail sits where it does now, so a later change does not move it back?" in " ".join(
        rb101.reply_point([f], patch).split()
    )
    mail = make_patch(tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth", HOT)
    _patch, [g] = findings(mail, None)
    assert g.message.startswith("struct foo_queue: member ring ")


def test_members_declared_on_one_line_are_several(tmp_path):
    """'u32 a, b;' moved is two members: 'members a, b'."""
    old = BEFORE.replace("\tu32\t\t\ttail;\n", "\tu32\t\t\ttail, head;\n")
    new = old.replace("\tu32\t\t\ttail, head;\n", "").replace(
        "\tu32\t\t\tdepth;\n", "\tu32\t\t\tdepth;\n\tu32\t\t\ttail, head;\n"
    )
    mail = make_patch(tmp_path, old, new, "reorder members of foo_queue", "Save 8 bytes.")
    patch, [f] = findings(mail, None)
    assert f.message.startswith("struct foo_queue: members tail, head reordered;"), f.message
    assert "why tail, head sit where they do now" in " ".join(rb101.reply_point([f], patch).split())
