"""Built-in review rules, installed as the package ``reviewbot.rules``.

One module per rule; ``reviewbot.registry`` imports every module here whose name
starts with ``rb`` and validates it against the contract in ``reviewbot.rule``.
"""
