"""Extension primitives the Python frontend translates to (names start
with ``__``): Python operators, built-ins, methods and text.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
