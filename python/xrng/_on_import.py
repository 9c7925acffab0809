"""Runs callbacks right after a module is first imported.

The mode sets torch's Inductor and DTensor up while it is active, but
importing them to do so at entry would cost seconds (``torch._inductor``
imports Dynamo). Where such a module is not loaded yet, the mode registers a
callback here instead: a finder at the front of ``sys.meta_path`` finds the
module's spec with the other finders and gives that module's own loader
instance an ``exec_module`` that runs the loader's and then the callbacks
(with the module as it stands in ``sys.modules``). The finder leaves
``sys.meta_path`` when no callback is left.
"""
from __future__ import annotations

import importlib.abc
import sys
from typing import Callable

_callbacks: dict[str, list[Callable]] = {}  # module name -> callbacks, in registration order


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _callbacks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        run = getattr(spec.loader, "exec_module", None)
        if run is None:  # a legacy loader: nothing to wrap (the callbacks stay registered)
            return spec

        def exec_module(module, run=run, name=name):
            run(module)
            if getattr(module, "__name__", None) != name:  # a loader shared with other modules
                return
            callbacks = _callbacks.pop(name, [])
            _leave_if_idle()
            loaded = sys.modules.get(name, module)
            for callback in callbacks:
                callback(loaded)
        spec.loader.exec_module = exec_module
        return spec


_finder = _Finder()


def _leave_if_idle() -> None:
    if not _callbacks:
        try:
            sys.meta_path.remove(_finder)
        except ValueError:
            pass


def when_imported(name: str, callback: Callable) -> None:
    """Calls ``callback(module)`` right after ``name`` is first imported
    (the caller has checked that it is not in ``sys.modules``)."""
    _callbacks.setdefault(name, []).append(callback)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def cancel(name: str, callback: Callable) -> None:
    """Removes a callback registered with :func:`when_imported` that has not run."""
    callbacks = _callbacks.get(name)
    if callbacks is not None:
        try:
            callbacks.remove(callback)
        except ValueError:
            pass
        if not callbacks:
            del _callbacks[name]
    _leave_if_idle()
