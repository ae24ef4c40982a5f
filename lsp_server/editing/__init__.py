"""Editor help without the editor: quick fixes, hovers and completions as plain data.

The language server's ``code_actions``, ``hover`` and ``completion`` features are thin wrappers
around this package. Everything here takes a file's path and text (and a rule profile) and
returns immutable results in code-point positions, so each rule can be tested on a string:
apply a fix to the text, re-run the rules, and the finding is gone.

- ``text``: positions, line breaks and text edits (``apply_edits``);
- ``yamltext``: writing YAML scalars that read back as the same string, and locating whole
  frontmatter fields (key line through the last line of its value);
- ``keys``: what every frontmatter key does and which agents honour it;
- ``fixes``: the quick fix for each fixable finding, verified against the rules;
- ``hovers`` and ``completions``: help inside the frontmatter.
"""
