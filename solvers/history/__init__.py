"""The history-tree representation: CFR over every history of a :class:`~solvers.GameTree`
(:mod:`~.rep` over the compiled kernel in :mod:`~._kernel` and the layout in :mod:`~.layout`), exact
best response (:mod:`~.best_response`) and reach/values of a policy (:mod:`~.evaluate`).
"""
