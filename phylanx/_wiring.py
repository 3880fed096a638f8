"""Which layer fills each rule table of the primitives (the composition root's part).

The primitives sit below autodiff, distribution and fusion and never import them
(``tests/test_layering.py``); yet a question about a whole table (coverage, a VJP
looked up by a primitive's own gradient) must see every rule.  So the tables are told
from above, here, which package registers their rules; ``RuleTable._fill`` imports it
on the first such question, so ``import phylanx`` does not pay for those layers.
Imported by ``phylanx/__init__`` before anything can ask a table.
"""
from __future__ import annotations

from . import config
from .ir import layouts
from .primitives.rules import DISTRIBUTION, FUSION, VJP

VJP.filled_by = "phylanx.autodiff"
DISTRIBUTION.filled_by = "phylanx.distributed.primitives"
FUSION.filled_by = "phylanx.fusion.rules"
# the IR's layout facts come from the distributed layer's rules
layouts.filled_by = "phylanx.distributed.layout_facts"
# the settings of the distributed layer, known to config.get/set before it is used
config.more_settings.append("phylanx.distributed.settings")
# the rewrite rules ``disable_rules`` may name
config.rules_module = "phylanx.compiler.rewrite"
