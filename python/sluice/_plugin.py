"""Plugins: shared libraries of element functions (Sluice's
dataset/plugin_abi.h), loaded by path."""

import os

from . import _sluice


class Plugin:
    """A loaded plugin: its canonical path, the name and version it
    reports, and its functions, which sluice.fn.named("<name>.<function>",
    ...) makes."""

    def __init__(self, path, name, version, functions):
        self.path = path
        self.name = name
        self.version = version
        self.functions = list(functions)

    def function(self, function, **args):
        """The plugin's function `function` made with keyword arguments, as
        sluice.fn.named(f"{name}.{function}", **args)."""
        return _sluice.fn_named(f"{self.name}.{function}", args)

    def __repr__(self):
        return f"Plugin(name={self.name!r}, version={self.version!r}, path={self.path!r}, functions={self.functions!r})"


def load_plugin(path):
    """Loads the plugin library at `path` (once per process; a second load
    of the same file returns the same plugin) and returns it. Raises
    NotFoundError when the file is missing, FailedPreconditionError when it
    was built for another plugin ABI, InvalidArgumentError when it is no
    Sluice plugin."""
    return Plugin(*_sluice.load_plugin(os.fspath(path)))
