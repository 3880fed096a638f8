"""Control primitives (§3.3.5): blocks, conditionals, loops, maps, folds, parallel forms.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
