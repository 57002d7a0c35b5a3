"""Selectors and navigators that take the editor's place (spec 60 §3.10, R-SEL-00).

``select_list.SelectList`` is the shared searchable list; each selector module builds one (or its
own widget) and shows it with ``app.show_in_editor_slot``; closing calls ``app.restore_editor()``.
"""
