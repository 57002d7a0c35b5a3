"""Extensions in the full-screen app (issue 7; spec 40 R-UI, spec 60 R-XUI/R-OVL).

Where the TUI halves of spec 40 §6 scenarios are tested:

* 2 (load failure isolation) — ``test_ext_commands.py::test_failing_extensions_leave_the_app_running_with_one_line_each``
* 4 (tool_call block, in a run) — ``test_ext_examples.py::test_permission_gate_asks_while_the_agent_waits``
* 19 (reload) — ``test_ext_commands.py::test_reload_reimports_edited_extension_code``
* 21 (command conflicts: ``/model`` stays built-in) —
  ``test_ext_commands.py::test_builtin_model_command_wins_over_an_extension_model_command``
* 22 (built-in tool override warning) —
  ``test_ext_commands.py::test_builtin_tool_override_warns_once_and_runs_the_extension``
* 36 (dialog timeout and abort in the pilot) — ``test_ext_dialogs.py::test_timed_confirm_counts_down_and_resolves_false``,
  ``test_ext_dialogs.py::test_aborted_confirm_resolves_false_at_abort_time``
"""
