"""Tests of the built-in tools (spec 50). Where each acceptance scenario of spec 50 §6 lives:

1-9 read: test_read.py (fits, line/byte limits, offset/limit, beyond end, long first line, images by
magic, large image, missing file); 10 macOS names: test_paths.py; 11 write: test_write.py;
12-21 edit: test_edit.py (simple, legacy arguments, not found/duplicates, fuzzy whitespace, untouched
lines, NFKC, duplicate after normalisation, CRLF+BOM, multi/overlap/no-op/empty, concurrency);
22-26 bash: test_bash.py (basics, truncation, process group, env, streaming); 27-28 grep:
test_grep.py; 29 find: test_find.py; 30 ls: test_ls.py; 31 abort: the ``test_*aborted*`` test of each
file tool. grep/find tests run once per search back end (``backend`` fixture) and, for the ignore
scenarios, in a git repository and in a plain directory (``repo_kind``); test_search_agreement.py
checks on random trees that both back ends print the same thing.
"""
