"""Built-in provider factories, one module per vendor; ``all.py`` lists them.

Importing a provider module never imports its wire adapter (adapters load on the first stream).
"""
