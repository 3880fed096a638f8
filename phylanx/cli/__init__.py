"""The ``phylanx`` command line: ``phylanx physl``, ``phylanx primitives``, ``phylanx translate``.

``main.py`` dispatches to one module per subcommand, each exposing ``main(argv) -> int``;
nothing else in the package imports ``phylanx.cli`` (only ``phylanx/__main__.py`` does).
"""
