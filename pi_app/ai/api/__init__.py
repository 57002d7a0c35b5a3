"""Wire adapters, one module per API id; each is imported lazily on the first stream of its API.

``shared`` holds the message builder and the request runner every adapter uses;
``transform_messages`` rewrites a history for the target model; ``simple_options`` maps thinking
levels. Provider-specific option dataclasses (``AnthropicOptions`` …) live in the adapter modules.
"""
