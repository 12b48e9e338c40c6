"""Links between the pages of a game's reference: to a section's label, whatever page it ends up on.

A game's reference is split into pages (overview, setup, the turn, characters, options...),
so a link from a rule to the option that changes it usually crosses pages. The renderers
make a :class:`kbsim_ref` node naming the section's label (``GAME-ANCHOR``, such as
``kingsbridge-option-hand_size``); :class:`ResolveRefs` turns it, once every page is read,
into a link to the page and anchor that carry the label. Unlike Sphinx's ``ref`` role it
keeps the link's content as written (a literal stays a literal).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)


class kbsim_ref(nodes.Inline, nodes.Element):  # noqa: N801 (docutils node classes are lower case)
    """A link to the section labelled ``reftarget``, resolved by :class:`ResolveRefs`."""


def make_ref(label: str, *content: str | nodes.Node) -> kbsim_ref:
    """A link to the section labelled ``label`` (``GAME-ANCHOR``) showing ``content`` (text or nodes)."""
    ref = kbsim_ref("", reftarget=nodes.fully_normalize_name(label))
    for c in content:
        ref += nodes.Text(c) if isinstance(c, str) else c
    return ref


class ResolveRefs(SphinxPostTransform):
    """Replace each :class:`kbsim_ref` by a link to the page and anchor of its label.

    A label no page defines is a warning (a ``-W`` build fails), and the content stays, unlinked.
    """

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        """Resolve every :class:`kbsim_ref` of the document being written."""
        std = self.env.domains.standard_domain if hasattr(self.env, "domains") else self.env.get_domain("std")
        here = self.env.docname
        for node in list(self.document.findall(kbsim_ref)):
            target = node["reftarget"]
            found = std.anonlabels.get(target)
            if not found or not found[0]:
                logger.warning("kbsim: no section is labelled %r", target, location=node)
                node.replace_self(node.children or [nodes.Text(target)])
                continue
            docname, anchor = found
            ref = nodes.reference("", "", internal=True)
            if docname == here:
                ref["refid"] = anchor
            else:
                ref["refuri"] = self.app.builder.get_relative_uri(here, docname) + "#" + anchor
            ref += node.children
            node.replace_self(ref)


def visit_unresolved(self: Any, node: nodes.Node) -> None:
    """Writers never see a :class:`kbsim_ref` (resolved before writing); skip one if they do."""
    raise nodes.SkipNode
