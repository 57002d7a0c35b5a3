"""``pi pods``: GPU machines over SSH running vLLM, written into ``models.json`` (issue 26).

A separate shell over the public SDK (``pi_app.ext``); it needs the ``pods`` extra (``asyncssh``).
``commands`` is the command line, ``remote`` the SSH connection, ``launch`` the GPU choice and vLLM
arguments (known-good configurations in ``known_models.json``), ``config`` the local pods file.
"""
